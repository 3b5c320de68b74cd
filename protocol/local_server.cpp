#include "protocol/local_server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "protocol/messages.hpp"

namespace herd::protocol {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

bool loopback_host(std::string host) {
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  return inet_pton(AF_INET6, host.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

std::string errno_text() { return std::strerror(errno); }

}  // namespace

std::filesystem::path runtime_dir() {
  if (std::string d = env("HERD_RUNTIME_DIR"); !d.empty()) return d;
  if (std::string d = env("XDG_RUNTIME_DIR"); !d.empty()) return std::filesystem::path(d) / "herd";
  if (std::string d = env("HOME"); !d.empty())
    return std::filesystem::path(d) / ".local" / "share" / "herd" / "runtime";
  return {};
}

std::filesystem::path local_server_file(std::uint16_t port) {
  const std::filesystem::path dir = runtime_dir();
  if (dir.empty()) return {};
  return dir / ("server-" + std::to_string(port) + ".json");
}

std::string write_local_server(const LocalServer& server, std::filesystem::path& written) {
  const std::filesystem::path file = local_server_file(server.port);
  if (file.empty()) return "no runtime directory (set HERD_RUNTIME_DIR, XDG_RUNTIME_DIR or HOME)";
  const std::filesystem::path dir = file.parent_path();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return "cannot make " + dir.string() + ": " + ec.message();
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return "cannot read " + dir.string() + ": " + errno_text();
  if (!S_ISDIR(st.st_mode) || st.st_uid != ::geteuid())
    return dir.string() + " is not a directory of this user's";
  if ((st.st_mode & 0077) != 0 && ::chmod(dir.c_str(), 0700) != 0)
    return "cannot make " + dir.string() + " private: " + errno_text();
  const nlohmann::json j = {
      {"port", server.port}, {"url", server.url}, {"token", server.token}, {"pid", server.pid}};
  const std::string text = j.dump() + "\n";
  const std::filesystem::path tmp = file.string() + ".tmp";
  ::unlink(tmp.c_str());  // a leftover of a server that died while writing
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return "cannot write " + tmp.string() + ": " + errno_text();
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const bool closed = ::close(fd) == 0;
  if (!ok || !closed || ::rename(tmp.c_str(), file.c_str()) != 0) {
    const std::string why = errno_text();
    ::unlink(tmp.c_str());
    return "cannot write " + file.string() + ": " + why;
  }
  written = file;
  return {};
}

std::optional<std::string> local_token(const std::string& host, std::uint16_t port) {
  if (!loopback_host(host)) return std::nullopt;
  const std::filesystem::path file = local_server_file(port);
  if (file.empty()) return std::nullopt;
  const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::string text;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
      st.st_size < 64 * 1024) {
    text.resize(static_cast<std::size_t>(st.st_size));
    if (::read(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) text.clear();
  }
  ::close(fd);
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("token") || !j["token"].is_string()) return std::nullopt;
  std::string token = j["token"].get<std::string>();
  if (token.empty() || token.size() > kMaxTokenBytes) return std::nullopt;
  return token;
}

}  // namespace herd::protocol
