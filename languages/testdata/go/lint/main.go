package main

import "fmt"

func main() {
	name := "gopher"
	fmt.Printf("%d\n", name)
}

func unused() {}
