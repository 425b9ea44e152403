/* The C reference for `sectax run --only spawn`: posix_spawn a program LOOPS
 * times in one window (empty environment, /dev/null as its standard
 * descriptors, its own process group, as sectax does), waiting for each.
 *
 *   cc -O2 -o spawn spawn.c && cc -static -O2 -o exit0 exit0.c
 *   ./spawn ./exit0 1000        # prints usecs_per_spawn
 *
 * Not built by the tests; docs/benchmarks.md records what it measured. */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

int main(int argc, char **argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: spawn PROGRAM LOOPS\n");
		return 2;
	}
	long loops = atol(argv[2]);
	char *args[] = {argv[1], NULL}, *env[] = {NULL};
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	posix_spawn_file_actions_init(&fa);
	for (int fd = 0; fd < 3; fd++)
		posix_spawn_file_actions_addopen(&fa, fd, "/dev/null", O_RDWR, 0);
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < loops; i++) {
		pid_t pid;
		int st;
		if (posix_spawn(&pid, argv[1], &fa, &at, args, env) != 0 || waitpid(pid, &st, 0) != pid || st != 0) {
			perror("spawn");
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f usecs_per_spawn\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e3 / loops);
	return 0;
}
