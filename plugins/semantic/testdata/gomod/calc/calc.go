// Package calc sums shape areas through a chain of calls.
package calc

import (
	"example.com/shapes/circle"
	"example.com/shapes/shape"
	"example.com/shapes/square"
)

// TotalArea sums the areas of shapes.
func TotalArea(shapes []shape.Shape) float64 {
	total := 0.0
	for _, s := range shapes {
		total += s.Area()
	}
	return total
}

// A calls B.
func A() float64 { return B() * 2 }

// B calls C.
func B() float64 { return C() + 1 }

// C builds shapes and sums them.
func C() float64 {
	shapes := []shape.Shape{circle.Circle{Radius: 1}, &square.Square{Side: 2}}
	return TotalArea(shapes)
}

// Report uses TotalArea too.
func Report() float64 { return TotalArea(nil) }
