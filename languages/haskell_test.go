package languages_test

import "testing"

// stack and hspec are not installed on this machine; the test parsers are
// tested on an output sample in hspec's format.
func TestHaskellSamples(t *testing.T) {
	t.Parallel()
	// Sample: stack test running an hspec suite with one failure.
	out := `Calc
  add
    adds [✔]
    adds negatives [✔]
  sub
    subtracts [✘]

Failures:

  test/CalcSpec.hs:14:5: 
  1) Calc.sub subtracts
       expected: 2
        but got: 8

  To rerun use: --match "/Calc/sub/subtracts/"

Randomized with seed 1462337221

Finished in 0.0009 seconds
3 examples, 1 failure
`
	res := sample(t, "haskell.test", out, "", 1)
	wantTests(t, res, 2, 1, 0, "Calc.sub subtracts")
}
