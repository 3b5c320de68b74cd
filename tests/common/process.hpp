// Test helpers that run real processes: a child with its output in a file, and waiting for an
// event (a line, a file) with a bounded poll. Used by the server-process and herd-ctl tests.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

extern char** environ;

namespace herd::testing {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Polls `ready` every 20 ms for at most `limit`; true once it holds.
template <class Ready>
bool wait_until(Ready ready, std::chrono::milliseconds limit = std::chrono::milliseconds(15000)) {
  const auto end = Clock::now() + limit;
  while (Clock::now() < end) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return ready();
}

// How a test's server treats commands: open to any client (most tests, which command without a
// token as they did before the server made one on every address), or as a user runs it (a token
// made at start, unless the test gives one).
enum class Commands { open, as_user };

class Process {
 public:
  // The child's environment is the test's, plus HERD_RUNTIME_DIR (the output file's directory:
  // a server's runtime file lands there, and herd-ctl run with the same directory finds it) and,
  // for a server with Commands::open, HERD_OPEN_COMMANDS=1.
  Process(const std::vector<std::string>& args, const fs::path& out,
          const char* program = HERD_SERVER_BIN, Commands commands = Commands::open) {
    std::vector<std::string> env_text;
    for (char** e = environ; *e; ++e) env_text.emplace_back(*e);
    env_text.push_back("HERD_RUNTIME_DIR=" + fs::absolute(out).parent_path().string());
    if (commands == Commands::open && std::string_view(program) == HERD_SERVER_BIN)
      env_text.push_back("HERD_OPEN_COMMANDS=1");
    std::vector<char*> envp;
    for (std::string& e : env_text) envp.push_back(e.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(program));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    EXPECT_EQ(posix_spawn(&pid_, program, &actions, nullptr, argv.data(), envp.data()), 0);
    posix_spawn_file_actions_destroy(&actions);
  }
  ~Process() {
    if (pid_ > 0 && !exited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  void signal(int sig) { kill(pid_, sig); }
  pid_t pid() const { return pid_; }
  // The exit status, or -1 if it did not exit within the limit.
  int wait_exit(std::chrono::milliseconds limit = std::chrono::milliseconds(10000)) {
    int status = 0;
    const bool done = wait_until([&] { return waitpid(pid_, &status, WNOHANG) == pid_; }, limit);
    if (!done) return -1;
    exited_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  pid_t pid_ = -1;
  bool exited_ = false;
};

// The port from the server's "listening on http://127.0.0.1:PORT/" line, once it is printed
// (-1 if it never is).
inline int listening_port(const fs::path& out) {
  int port = -1;
  wait_until([&] {
    const std::string text = slurp(out);
    const std::string marker = "listening on http://127.0.0.1:";
    const auto at = text.find(marker);
    if (at != std::string::npos) port = std::atoi(text.c_str() + at + marker.size());
    return port > 0;
  });
  return port;
}

}  // namespace herd::testing
