#pragma once
// Kept so the model tests include it as before; the fixtures live in tests/support/ (one definition each).
#include "support/model_fixtures.hpp"
