// Package square implements shape.Shape for squares.
package square

// Square is a shape with four equal sides.
type Square struct {
	Side float64
}

// Area returns the square's area.
func (s *Square) Area() float64 { return s.Side * s.Side }

// Name returns "square".
func (s *Square) Name() string { return "square" }
