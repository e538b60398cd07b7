package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(1, 2); got != 3 {
		t.Errorf("Add(1, 2) = %d, want 3", got)
	}
}

func TestAddNegative(t *testing.T) {
	if got := Add(-1, -2); got != -3 {
		t.Errorf("Add(-1, -2) = %d, want -3", got)
	}
}

func TestSub(t *testing.T) {
	if got := Sub(5, 3); got != 2 {
		t.Errorf("Sub(5, 3) = %d, want 2", got)
	}
}

func TestLater(t *testing.T) {
	t.Skip("not written yet")
}
