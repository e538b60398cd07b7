#include "shape.h"

double square_area(const struct square *s) {
	return s->side * s->side;
}

double total_area(const struct square *shapes, int n) {
	double sum = 0;
	for (int i = 0; i < n; i++) {
		sum += square_area(&shapes[i]);
	}
	return sum;
}
