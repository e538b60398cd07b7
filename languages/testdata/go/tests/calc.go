// Package calc is a test fixture for the go.test tool.
package calc

// Add returns a + b.
func Add(a, b int) int { return a + b }

// Sub returns a - b, but gets it wrong on purpose.
func Sub(a, b int) int { return a + b }
