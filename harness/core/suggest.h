// "Did you mean": the valid name closest to a mistyped one (a subcommand, a spawner, a suite).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace breakout {

// Optimal string alignment distance (Levenshtein plus the swap of two neighbours, so "rnu" is one
// edit from "run"), compared without ASCII case.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `typed` when it is near enough to be a typo (at most 2 edits, or a third
// of the longer name's length); the first of equally near ones; nullopt otherwise.
std::optional<std::string> closest_name(std::string_view typed, const std::vector<std::string>& candidates);

// "did you mean 'run'? valid: list, run, listen" (or only "valid: ..." when nothing is near),
// for the end of an error message; `typed` never appears in it (the caller names it, escaped).
std::string did_you_mean(std::string_view typed, const std::vector<std::string>& candidates);

}  // namespace breakout
