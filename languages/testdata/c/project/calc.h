#ifndef CALC_H
#define CALC_H

int add(int a, int b);
int sub(int a, int b);

#endif
