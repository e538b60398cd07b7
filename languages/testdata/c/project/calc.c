#include "calc.h"

int add(int a, int b) { return a + b; }

/* Wrong on purpose: the fixture needs a failing test. */
int sub(int a, int b) { return a + b; }
