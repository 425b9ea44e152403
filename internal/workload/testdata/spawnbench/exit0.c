/* A static program that exits at once: cc -static -O2 -o exit0 exit0.c */
#include <unistd.h>
int main(void) { _exit(0); }
