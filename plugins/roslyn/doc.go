// Package roslyn holds the test support for the Roslyn dialect of the LSP
// bridge: fakeroslyn, a scripted peer that speaks like the Roslyn language
// server, the roslyntest helper that builds it, and a C# fixture workspace
// in testdata/Shapes. The tests in this package drive the fake over pipes to
// pin down the behaviour dialect clients rely on.
package roslyn
