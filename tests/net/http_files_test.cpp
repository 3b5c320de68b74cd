#include "net/http_files.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace herd::net {
namespace {

namespace fs = std::filesystem;

class HttpFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() / ("herd_files_" + std::to_string(::getpid()));
    root_ = base_ / "web";
    fs::create_directories(root_ / "sub");
    fs::create_directories(root_ / "empty");
    write(root_ / "index.html", "<html>home</html>");
    write(root_ / "main.js", "export {};");
    write(root_ / "sub" / "style.css", "body{}");
    write(base_ / "secret.txt", "secret");
    fs::create_symlink(base_ / "secret.txt", root_ / "link.txt");
  }
  void TearDown() override { fs::remove_all(base_); }
  static void write(const fs::path& p, const std::string& s) { std::ofstream(p) << s; }
  fs::path base_, root_;
};

TEST_F(HttpFiles, ServesIndexAndFilesWithTheirTypes) {
  auto r = serve_file("/", root_.string());
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.path, std::filesystem::weakly_canonical(root_ / "index.html").string())
      << "named, to be streamed";
  EXPECT_TRUE(r.body.empty());
  EXPECT_EQ(r.content_type, "text/html; charset=utf-8");
  r = serve_file("/main.js?v=3", root_.string());
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "text/javascript; charset=utf-8");
  r = serve_file("/sub/style.css", root_.string());
  EXPECT_EQ(r.content_type, "text/css; charset=utf-8");
  EXPECT_EQ(serve_file("/%6dain.js", root_.string()).status, 200);  // percent-encoded 'm'
}

// The operator's page has a name of its own: /monitor (its token rides in the fragment, which no
// request carries) is monitor.html; only that name, not a path under it.
TEST_F(HttpFiles, TheMonitorIsServedAtItsName) {
  write(root_ / "monitor.html", "<html>monitor</html>");
  for (const char* t : {"/monitor", "/monitor?x=1", "/monitor.html"}) {
    const auto r = serve_file(t, root_.string());
    EXPECT_EQ(r.status, 200) << t;
    EXPECT_EQ(r.path, fs::weakly_canonical(root_ / "monitor.html").string()) << t;
    EXPECT_EQ(r.content_type, "text/html; charset=utf-8") << t;
  }
  EXPECT_EQ(serve_file("/monitor/", root_.string()).status, 404);
  EXPECT_EQ(serve_file("/monitors", root_.string()).status, 404);
}

TEST_F(HttpFiles, RefusesTraversalEncodedOrNot) {
  for (const char* t :
       {"/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E%2Fsecret.txt", "/sub/../../secret.txt",
        "/sub/%2e%2e/%2e%2e/secret.txt", "/..%5csecret.txt", "/link.txt"}) {
    const auto r = serve_file(t, root_.string());
    EXPECT_EQ(r.status, 404) << t;  // as any file not served (operations.md, hostile clients)
    EXPECT_EQ(r.body.find("secret"), std::string::npos) << t;
    EXPECT_TRUE(r.path.empty()) << t;
  }
}

// Hidden files and directories are not served (a web root that is a checkout holds .git).
TEST_F(HttpFiles, HiddenFilesAreNotServed) {
  fs::create_directories(root_ / ".git");
  std::ofstream(root_ / ".git" / "config") << "[remote]";
  std::ofstream(root_ / ".env") << "SECRET=1";
  for (const char* t : {"/.git/config", "/.env", "/%2egit/config", "/sub/../.env", "/./.env"}) {
    const auto r = serve_file(t, root_.string());
    EXPECT_NE(r.status, 200) << t;
    EXPECT_TRUE(r.path.empty()) << t;
  }
  EXPECT_EQ(serve_file("/.git/config", root_.string()).status, 404);
}

TEST_F(HttpFiles, NoListingsAndClearMisses) {
  EXPECT_EQ(serve_file("/empty/", root_.string()).status, 404);
  EXPECT_EQ(serve_file("/sub", root_.string()).status, 404);
  EXPECT_EQ(serve_file("/nope.js", root_.string()).status, 404);
  EXPECT_EQ(serve_file("/%zz", root_.string()).status, 400);
  EXPECT_EQ(serve_file("/a%00b", root_.string()).status, 400);
  EXPECT_EQ(serve_file("/%4", root_.string()).status, 400);
  EXPECT_EQ(serve_file("nope", root_.string()).status, 400);
  EXPECT_EQ(serve_file("/", (base_ / "missing").string()).status, 404);
}

// The JavaScript client package beside the web root (clients/js beside clients/web): its src/
// at /js/src/, which is where the viewer's '../js/src/...' imports lead from the site's root;
// nothing else of the package, and nothing outside its src/.
TEST_F(HttpFiles, ServesTheClientPackagesModulesBesideTheWebRoot) {
  fs::create_directories(base_ / "js" / "src");
  fs::create_directories(base_ / "js" / "tests");
  write(base_ / "js" / "src" / "client.js", "export {};");
  write(base_ / "js" / "package.json", "{}");
  write(base_ / "js" / "tests" / "client.test.mjs", "");
  write(base_ / "js" / "src" / ".hidden.js", "");
  fs::create_symlink(base_ / "secret.txt", base_ / "js" / "src" / "link.js");
  const auto module = fs::weakly_canonical(base_ / "js" / "src" / "client.js").string();
  for (const std::string& root : {root_.string(), root_.string() + "/", (root_ / ".").string()}) {
    for (const char* t : {"/js/src/client.js", "/js/src/%63lient.js?v=2"}) {
      const auto r = serve_file(t, root);
      EXPECT_EQ(r.status, 200) << t << " from " << root;
      EXPECT_EQ(r.path, module) << t;
      EXPECT_EQ(r.content_type, "text/javascript; charset=utf-8") << t;
    }
  }
  for (const char* t : {"/js/package.json", "/js/tests/client.test.mjs", "/js/", "/js/src/",
                        "/js/src/nope.js", "/js/src/.hidden.js", "/js"})
    EXPECT_EQ(serve_file(t, root_.string()).status, 404) << t;
  for (const char* t :
       {"/js/src/../package.json", "/js/src/%2e%2e/%2e%2e/secret.txt", "/js/src/link.js"}) {
    const auto r = serve_file(t, root_.string());
    EXPECT_EQ(r.status, 404) << t;
    EXPECT_TRUE(r.path.empty()) << t;
  }
  // A web root with no package beside it serves none.
  fs::create_directories(base_ / "other" / "web");
  EXPECT_EQ(serve_file("/js/src/client.js", (base_ / "other" / "web").string()).status, 404);
}

TEST(PercentDecode, DecodesAndRejects) {
  EXPECT_EQ(percent_decode("/a%20b"), "/a b");
  EXPECT_EQ(percent_decode("/a%2"), std::nullopt);
  EXPECT_EQ(percent_decode("/%g0"), std::nullopt);
}

}  // namespace
}  // namespace herd::net
