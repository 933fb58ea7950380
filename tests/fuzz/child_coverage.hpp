#pragma once
// libFuzzer is guided by SanitizerCoverage's inline 8-bit counters, which a forked child increments in its own copy
// of memory. For harnesses whose code under test runs in a child (fuzz_front_reader: the guarded HDF5 reader), the
// child copies its counters into memory shared with the parent just before it exits, and the parent merges them
// into its own after the call, so libFuzzer sees what the child's parse reached. Without -fsanitize=fuzzer (the
// replay build) there are no counters and these do nothing.
//
// child_coverage.cpp is compiled without coverage instrumentation: it names the linker's __start/__stop symbols of
// the counters section, and an instrumented file that declares them makes the instrumentation create renamed ones
// (then libFuzzer never learns where the counters are).
namespace shardmeter::fuzz {

void child_coverage_reset();      // parent, before the call that forks
void child_coverage_copy_out();   // child, before it exits (IsolationLimits::before_child_exit)
void child_coverage_merge();      // parent, after the call (also when it threw)

}  // namespace shardmeter::fuzz
