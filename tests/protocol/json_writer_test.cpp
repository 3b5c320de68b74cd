#include "protocol/json_writer.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace herd::protocol {
namespace {

std::string num(double v) {
  std::string out;
  JsonWriter w(out);
  w.number(v);
  return out;
}

TEST(JsonWriter, NumbersHaveAtMostThreeDecimalsAndNoNoise) {
  EXPECT_EQ(num(1.0), "1");
  EXPECT_EQ(num(0.1), "0.1");
  EXPECT_EQ(num(123.4567), "123.457");
  EXPECT_EQ(num(-2.5), "-2.5");
  EXPECT_EQ(num(-0.0001), "0");  // never "-0"
  EXPECT_EQ(num(0.0), "0");
  EXPECT_EQ(num(1e6), "1000000");
  EXPECT_EQ(num(NAN), "0");
  EXPECT_EQ(num(INFINITY), "0");
  EXPECT_EQ(num(1e300).find_first_not_of("0123456789.e+"),
            std::string::npos);  // still a JSON number
}

TEST(JsonWriter, StringsAreEscaped) {
  std::string out;
  JsonWriter w(out);
  w.string("a\"b\\c\n\x01");
  EXPECT_EQ(out, R"("a\"b\\c\n\u0001")");
}

TEST(JsonWriter, ObjectsAndArraysGetCommasRight) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.field("a", 1);
  w.key("b");
  w.begin_array();
  w.integer(1);
  w.begin_object();
  w.end_object();
  w.integer(2);
  w.signed_integer(-3069);
  w.signed_integer(7);
  w.end_array();
  w.field("c", "x");
  w.end_object();
  EXPECT_EQ(out, R"({"a":1,"b":[1,{},2,-3069,7],"c":"x"})");
}

}  // namespace
}  // namespace herd::protocol
