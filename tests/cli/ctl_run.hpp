// herd-ctl run as a process by the CLI tests: its arguments after `--url URL --timeout 10`, its
// standard input from `input` when given (through /bin/sh), its output (stdout and stderr) and
// exit status, waited for at most 20 s. Each run's files are numbered in `dir` by `runs`.
#pragma once

#include <chrono>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "common/process.hpp"

namespace herd::testing {

struct CtlRun {
  int status = -1;
  std::string out;
};

inline CtlRun run_ctl(const fs::path& dir, int& runs, std::vector<std::string> args,
                      const std::string& url, const std::optional<std::string>& input = {}) {
  args.insert(args.begin(), {"--url", url, "--timeout", "10"});
  const fs::path out = dir / ("ctl" + std::to_string(++runs) + ".log");
  const char* program = HERD_CTL_BIN;
  if (input) {
    const fs::path in = dir / ("ctl" + std::to_string(runs) + ".in");
    std::ofstream(in) << *input;
    std::string line = std::string("exec ") + HERD_CTL_BIN;
    for (const auto& a : args) line += " '" + a + "'";
    args = {"-c", line + " < '" + in.string() + "'"};
    program = "/bin/sh";
  }
  Process p(args, out, program);
  CtlRun r;
  r.status = p.wait_exit(std::chrono::milliseconds(20000));
  r.out = slurp(out);
  return r;
}

}  // namespace herd::testing
