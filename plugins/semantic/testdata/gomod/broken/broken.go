package broken

// Count has a type error.
func Count() int {
	var n int = "three"
	return n
}
