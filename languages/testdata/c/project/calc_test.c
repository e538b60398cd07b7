/* A minimal test runner that prints the plain "N passed, N failed" line. */
#include <stdio.h>

#include "calc.h"

static int passed, failed;

static void check(const char *name, int got, int want) {
    if (got == want) {
        passed++;
        return;
    }
    failed++;
    printf("FAIL %s: got %d, want %d\n", name, got, want);
}

int main(void) {
    check("add", add(1, 2), 3);
    check("add_negative", add(-1, -2), -3);
    check("sub", sub(5, 3), 2);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
