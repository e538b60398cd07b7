#ifndef SHAPE_H
#define SHAPE_H

struct square {
	double side;
};

double square_area(const struct square *s);
double total_area(const struct square *shapes, int n);

#endif
