#include <stdio.h>

int main(void) {
    int unused = 0;
    printf("%d\n", total);
    return 0;
}
