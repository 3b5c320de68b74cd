#include "net/observability_text.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

namespace herd::net {
namespace {

TEST(Prometheus, HistogramBucketsAreCumulativeWithInfinity) {
  MetricsView m;
  m.tick_duration.observe(0.00005);  // first bucket
  m.tick_duration.observe(0.002);    // le 0.0025
  m.tick_duration.observe(3.0);      // above every bound
  const std::string text = render_prometheus(m);
  EXPECT_NE(text.find("herd_tick_duration_seconds_bucket{le=\"0.0001\"} 1\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("herd_tick_duration_seconds_bucket{le=\"0.0025\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("herd_tick_duration_seconds_bucket{le=\"0.25\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("herd_tick_duration_seconds_bucket{le=\"+Inf\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("herd_tick_duration_seconds_count 3\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE herd_tick_duration_seconds histogram\n"), std::string::npos);
  EXPECT_NE(text.find("herd_errors_total{code=\"bad_selection\"} 0\n"), std::string::npos)
      << "every code listed";
}

// Each stage of the step is a labelled histogram of one family, under one HELP and TYPE.
TEST(Prometheus, StepStagesAreOneHistogramFamilyLabelledByStage) {
  MetricsView m;
  m.step_stages[static_cast<std::size_t>(sim::Stage::avoidance)].observe(0.003);  // le 0.005
  m.step_stages[static_cast<std::size_t>(sim::Stage::grid)].observe(2e-6);        // le 5e-06
  const std::string text = render_prometheus(m);
  EXPECT_NE(text.find("# TYPE herd_step_stage_seconds histogram\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("# TYPE herd_step_stage_seconds"),
            text.rfind("# TYPE herd_step_stage_seconds"));
  EXPECT_NE(text.find("herd_step_stage_seconds_bucket{stage=\"avoidance\",le=\"0.0025\"} 0\n"),
            std::string::npos);
  EXPECT_NE(text.find("herd_step_stage_seconds_bucket{stage=\"avoidance\",le=\"0.005\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("herd_step_stage_seconds_bucket{stage=\"grid\",le=\"5e-06\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("herd_step_stage_seconds_sum{stage=\"avoidance\"} 0.003000000\n"),
            std::string::npos);
  EXPECT_NE(text.find("herd_step_stage_seconds_count{stage=\"formations\"} 0\n"),
            std::string::npos);
  for (std::size_t s = 0; s < sim::kStageCount; ++s)
    EXPECT_NE(text.find("herd_step_stage_seconds_count{stage=\"" +
                        std::string(sim::stage_name(static_cast<sim::Stage>(s))) + "\"}"),
              std::string::npos);
}

// Every series /metrics can show (a relay's and a trajectory recorder's included) has its row in
// docs/operations.md, and every series has exactly one HELP and one TYPE line.
TEST(ObservabilityText, EverySeriesIsInTheOperationsGuide) {
  MetricsView m;
  m.relay = true;
  protocol::MeasurementState line;  // reported, so that every measurement series shows
  line.id = 1;
  line.tick = 60;
  line.mean_gap = 0.5;
  protocol::MeasurementState area = line;
  area.id = 2;
  area.line = false;
  area.mean_speed = 1;
  m.measurements = {line, area};
  m.sources = {{1, {0, 0}, {1, 1}, 2, 10, 4, 6}};
  m.exits = {{1, {0, 0}, {1, 1}, 3}};
  m.trajectories = true;
  const std::string text = render_prometheus(m);
  std::ifstream in(std::string(HERD_DOCS_DIR) + "/operations.md");
  ASSERT_TRUE(in) << HERD_DOCS_DIR;
  std::stringstream guide;
  guide << in.rdbuf();
  std::istringstream lines(text);
  std::set<std::string> helped, typed;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("# HELP ", 0) == 0) {
      const std::string name = line.substr(7, line.find(' ', 7) - 7);
      EXPECT_TRUE(helped.insert(name).second) << "two HELP lines for " << name;
      EXPECT_NE(guide.str().find("| `" + name), std::string::npos)
          << name << " is not in docs/operations.md";
    } else if (line.rfind("# TYPE ", 0) == 0) {
      EXPECT_TRUE(typed.insert(line.substr(7, line.find(' ', 7) - 7)).second) << line;
    }
  }
  EXPECT_EQ(helped, typed);
  EXPECT_GE(helped.size(), 30u);
}

TEST(Prometheus, LateWakesAreACounter) {
  MetricsView m;
  m.late_wakes = 7;
  const std::string text = render_prometheus(m);
  EXPECT_NE(text.find("# TYPE herd_tick_late_wakes_total counter\n"), std::string::npos) << text;
  EXPECT_NE(text.find("herd_tick_late_wakes_total 7\n"), std::string::npos) << text;
}

TEST(Log, OneLineWithTimeLevelEventAndQuotedFields) {
  const std::string line =
      format_log(LogLevel::warn, "tick_overrun",
                 {{"tick", "42"}, {"client", "my \"viewer\" = 1"}, {"empty", ""}});
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(line.substr(23),
            "Z warn tick_overrun tick=42 client=\"my \\\"viewer\\\" = 1\" empty=\"\"");
  EXPECT_EQ(line[10], 'T');
}

}  // namespace
}  // namespace herd::net
