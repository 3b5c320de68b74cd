#include "protocol/local_server.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
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

std::string unbracketed(std::string host) {
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  return host;
}

// Whether two texts name one IP address (both literal); names never match.
bool same_address(const std::string& a, const std::string& b) {
  in_addr a4{}, b4{};
  if (inet_pton(AF_INET, a.c_str(), &a4) == 1)
    return inet_pton(AF_INET, b.c_str(), &b4) == 1 && a4.s_addr == b4.s_addr;
  in6_addr a6{}, b6{};
  return inet_pton(AF_INET6, a.c_str(), &a6) == 1 && inet_pton(AF_INET6, b.c_str(), &b6) == 1 &&
         std::memcmp(&a6, &b6, sizeof a6) == 0;
}

std::string errno_text() { return std::strerror(errno); }

// The file's JSON, when it is a regular file of this user's (not followed through a link), under
// 64 KiB; discarded otherwise.
nlohmann::json read_own_file(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return nlohmann::json::value_t::discarded;
  struct stat st {};
  std::string text;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
      st.st_size < 64 * 1024) {
    text.resize(static_cast<std::size_t>(st.st_size));
    if (::read(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) text.clear();
  }
  ::close(fd);
  return nlohmann::json::parse(text, nullptr, false);
}

// The pid a runtime file names, or 0.
long file_pid(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("pid") || !j["pid"].is_number_integer()) return 0;
  return j["pid"].get<long>();
}

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
  nlohmann::json j = {{"port", server.port},
                      {"addresses", server.addresses},
                      {"url", server.url},
                      {"token", server.token},
                      {"pid", server.pid}};
  if (!server.players.empty()) {
    nlohmann::json players = nlohmann::json::array();
    for (const LocalPlayer& p : server.players)
      players.push_back({{"name", p.name}, {"team", p.team}, {"url", p.url}});
    j["players"] = std::move(players);
  }
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

bool process_alive(long pid) { return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) == 0; }

std::size_t remove_stale_local_servers() {
  const std::filesystem::path dir = runtime_dir();
  if (dir.empty()) return 0;
  std::error_code ec;
  std::size_t removed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("server-", 0) != 0 || name.size() < 12 ||
        name.compare(name.size() - 5, 5, ".json") != 0)
      continue;
    const nlohmann::json j = read_own_file(entry.path());
    if (j.is_discarded() || process_alive(file_pid(j))) continue;
    std::error_code ignored;
    if (std::filesystem::remove(entry.path(), ignored)) ++removed;
  }
  return removed;
}

namespace {

// The runtime file of the server at `port`, when it is this user's, of that port, its server
// runs and `url_host` is one of its addresses (`localhost`: its first); and that address.
std::optional<std::pair<nlohmann::json, std::string>> own_running_file(const std::string& url_host,
                                                                       std::uint16_t port) {
  const std::string host = unbracketed(url_host);
  const std::filesystem::path file = local_server_file(port);
  if (file.empty()) return std::nullopt;
  nlohmann::json j = read_own_file(file);
  if (!j.is_object()) return std::nullopt;
  // A file of another port (renamed by hand), or of a server that is gone: its port may be
  // anyone's now.
  if (!j.contains("port") || !j["port"].is_number_integer() || j["port"].get<long>() != port)
    return std::nullopt;
  if (!process_alive(file_pid(j))) return std::nullopt;
  if (!j.contains("addresses") || !j["addresses"].is_array()) return std::nullopt;
  std::vector<std::string> addresses;
  for (const auto& a : j["addresses"])
    if (a.is_string()) addresses.push_back(a.get<std::string>());
  std::optional<std::string> target;
  if (host == "localhost") {
    // The address the server holds: a literal one (a name would be resolved again).
    if (!addresses.empty() && same_address(addresses.front(), addresses.front()))
      target = addresses.front();
  } else {
    for (const std::string& a : addresses)
      if (same_address(host, a)) target = host;
  }
  if (!target) return std::nullopt;
  return std::pair{std::move(j), *target};
}

}  // namespace

std::optional<std::vector<LocalPlayer>> local_players(const std::string& url_host,
                                                      std::uint16_t port) {
  const auto found = own_running_file(url_host, port);
  if (!found) return std::nullopt;
  std::vector<LocalPlayer> out;
  const nlohmann::json& j = found->first;
  if (!j.contains("players") || !j["players"].is_array()) return out;
  for (const auto& p : j["players"]) {
    if (!p.is_object() || !p.contains("name") || !p["name"].is_string() || !p.contains("url") ||
        !p["url"].is_string() || !p.contains("team") || !p["team"].is_number_integer())
      continue;
    out.push_back({p["name"].get<std::string>(), static_cast<std::uint8_t>(p["team"].get<int>()),
                   p["url"].get<std::string>()});
  }
  return out;
}

std::optional<LocalGrant> local_token(const std::string& url_host, std::uint16_t port) {
  const auto found = own_running_file(url_host, port);
  if (!found) return std::nullopt;
  const nlohmann::json& j = found->first;
  if (!j.contains("token") || !j["token"].is_string()) return std::nullopt;
  std::string token = j["token"].get<std::string>();
  if (token.empty() || token.size() > kMaxTokenBytes) return std::nullopt;
  return LocalGrant{std::move(token), found->second};
}

}  // namespace herd::protocol
