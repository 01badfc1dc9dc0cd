/* Without a fuzzing engine, runs a fuzz target over files and directories
 * given as arguments (its seed corpus and reproducers), so that ordinary
 * builds check every committed input (as libvips' fuzz/meson.build does). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	struct stat st;
	if (fstat(fileno(f), &st) || st.st_size < 0) {
		fclose(f);
		return -1;
	}
	size_t n = (size_t)st.st_size;
	uint8_t *data = malloc(n ? n : 1);
	size_t got = data ? fread(data, 1, n, f) : 0;
	fclose(f);
	if (got != n) {
		free(data);
		return -1;
	}
	LLVMFuzzerTestOneInput(data, n);
	free(data);
	return 0;
}

int main(int argc, char **argv)
{
	size_t count = 0;
	for (int i = 1; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		if (!d) {
			if (run_file(argv[i])) {
				perror(argv[i]);
				return 1;
			}
			count++;
			continue;
		}
		struct dirent *e;
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			if (run_file(path)) {
				perror(path);
				closedir(d);
				return 1;
			}
			count++;
		}
		closedir(d);
	}
	printf("replayed %zu inputs\n", count);
	return count ? 0 : 1;
}
