// shardmeter: parse the command line, run one command, map its outcome to an exit status.
#include <cstdio>

int main() {
  std::puts("shardmeter " SHARDMETER_VERSION);
  return 0;
}
