#pragma once
// Kept so the search tests include it as before; the fixtures live in tests/support/ (one definition each).
#include "support/search_spaces.hpp"
