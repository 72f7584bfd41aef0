#pragma once
// Build-wide switches shared by the runtime headers.

// When 1 (the default), enum_to_string-style helpers return names; define it to 0 to leave those strings out.
#ifndef ET_ENABLE_ENUM_STRINGS
#define ET_ENABLE_ENUM_STRINGS 1
#endif
