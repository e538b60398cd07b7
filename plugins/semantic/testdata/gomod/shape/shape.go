// Package shape defines the Shape interface.
package shape

// Shape is a plane figure.
type Shape interface {
	Area() float64
	Name() string
}
