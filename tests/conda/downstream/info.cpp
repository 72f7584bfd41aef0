#include <cstdio>

int et_downstream_method_count(const char* path);

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  int n = et_downstream_method_count(argv[1]);
  std::printf("methods: %d\n", n);
  return n > 0 ? 0 : 2;
}
