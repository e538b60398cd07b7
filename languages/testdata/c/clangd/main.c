#include <stdio.h>

#include "shape.h"

static int broken(void) {
	return missing;
}

int main(void) {
	struct square s = {2};
	int unused;
	printf("%f\n", square_area(&s));
	return broken();
}
