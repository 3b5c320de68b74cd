// RequestRate: plain HTTP requests per address, driven by the time passed in (no waiting): the
// burst, the refill, Retry-After, addresses by address_key, the bound on the table, and threads.
#include "net/request_rate.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace herd::net {
namespace {

// Requests admitted from `ip` at `now`, asking until one is refused (at most `most`).
int admitted_until_refused(RequestRate& r, const std::string& ip, double now, int most = 10000) {
  int n = 0;
  while (n < most && !r.admit(ip, now)) ++n;
  return n;
}

bool refused(RequestRate& r, const std::string& ip, double now) {
  return r.admit(ip, now).has_value();
}

TEST(RequestRate, ABurstOfTwiceTheRateThenTheRateAndRetryAfterInWholeSeconds) {
  RequestRate r(100);
  EXPECT_EQ(r.burst(), 200);
  EXPECT_EQ(admitted_until_refused(r, "10.0.0.1", 0.0), 200);
  const auto wait = r.admit("10.0.0.1", 0.0);
  ASSERT_TRUE(wait);
  EXPECT_EQ(*wait, 1u) << "a token comes back within 10 ms: rounded up to a whole second";
  EXPECT_EQ(admitted_until_refused(r, "10.0.0.1", 0.5), 50)
      << "refilled at 100 a second: the refusals took nothing";
  EXPECT_TRUE(refused(r, "10.0.0.1", 0.5));
  EXPECT_EQ(admitted_until_refused(r, "10.0.0.1", 1000.0), 200) << "never above the burst";
}

TEST(RequestRate, RetryAfterSaysWhenTheNextTokenComes) {
  RequestRate slow(0.25);  // a request every 4 s, bursts of one
  EXPECT_EQ(slow.burst(), 1);
  EXPECT_FALSE(slow.admit("10.0.0.1", 0.0));
  EXPECT_EQ(slow.admit("10.0.0.1", 0.0), 4u);
  EXPECT_EQ(slow.admit("10.0.0.1", 1.0), 3u);
  EXPECT_EQ(slow.admit("10.0.0.1", 3.5), 1u);
  EXPECT_FALSE(slow.admit("10.0.0.1", 4.0));
}

TEST(RequestRate, AddressesAreCountedByTheirKey) {
  RequestRate r(1);  // bursts of two
  EXPECT_EQ(admitted_until_refused(r, "2001:db8:1:2::1", 0.0), 2);
  EXPECT_TRUE(refused(r, "2001:db8:1:2:ffff::9", 0.0)) << "the same /64: one subscriber";
  EXPECT_EQ(admitted_until_refused(r, "2001:db8:1:3::1", 0.0), 2) << "another /64";
  EXPECT_EQ(admitted_until_refused(r, "203.0.113.7", 0.0), 2);
  EXPECT_TRUE(refused(r, "::ffff:203.0.113.7", 0.0)) << "IPv4-mapped is the IPv4 address";
  EXPECT_EQ(admitted_until_refused(r, "203.0.113.8", 0.0), 2) << "other addresses are not held";
  EXPECT_EQ(r.addresses(), 4u);
}

TEST(RequestRate, ZeroIsNoLimitAndKeepsNothing) {
  RequestRate off(0);
  EXPECT_FALSE(off.enabled());
  EXPECT_EQ(admitted_until_refused(off, "10.0.0.1", 0.0), 10000);
  EXPECT_EQ(off.addresses(), 0u);
}

// Many addresses, one request each: the table stays within its cap. A throttled address is kept
// over addresses that have spent less (it would gain a fresh burst if forgotten), and buckets that
// have filled again are forgotten first, as they hold nothing.
TEST(RequestRate, TheTableIsBoundedAndKeepsTheAddressesThatAreThrottled) {
  RequestRate r(10, 64);
  EXPECT_EQ(admitted_until_refused(r, "10.0.0.1", 0.0), 20);
  for (int i = 0; i < 10000; ++i) {
    r.admit("2001:db8:" + std::to_string(i) + "::1", 0.0);
    ASSERT_LE(r.addresses(), 64u) << i;
  }
  EXPECT_TRUE(refused(r, "10.0.0.1", 0.0)) << "the flooder was kept, and is still refused";
}

TEST(RequestRate, FullBucketsAreForgottenWhenRoomIsNeeded) {
  RequestRate r(10, 64);
  for (int i = 0; i < 64; ++i) r.admit("10.1.0." + std::to_string(i), 0.0);
  EXPECT_EQ(r.addresses(), 64u);
  EXPECT_EQ(admitted_until_refused(r, "10.0.0.1", 2.0), 20) << "a new address gets a burst";
  EXPECT_EQ(r.addresses(), 1u) << "the 64 had filled up again after 0.1 s: all forgotten";
  EXPECT_TRUE(refused(r, "10.0.0.1", 2.0));
}

// The shards' threads ask at once, for one address and for many (sweeps included): that address
// gets exactly its burst (the clock held still), whichever thread asks.
TEST(RequestRate, ThreadsShareOneBudgetPerAddress) {
  RequestRate r(10, 256);
  std::atomic<int> shared{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        if (!r.admit("10.0.0.1", 0.0)) ++shared;
        r.admit("10.2." + std::to_string(t) + "." + std::to_string(i % 250), 0.0);
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(shared.load(), 20);
  EXPECT_LE(r.addresses(), 256u);
}

}  // namespace
}  // namespace herd::net
