// sqlite3 calls with their error messages turned into breakout::Error.
#include "harness/history/sqlite.h"

#include <sqlite3.h>

#include <type_traits>

#include "harness/core/error.h"
#include "harness/core/wtf8.h"

namespace breakout::sql {

namespace {

// sqlite3_open_v2 takes the file name in UTF-8 (https://www.sqlite.org/c3ref/open.html); a Windows
// fs::path is UTF-16, turned into WTF-8 (core/wtf8.h) as everywhere else in the harness.
template <class Native>
std::string utf8_name(const Native& native) {
  if constexpr (std::is_same_v<typename Native::value_type, char>) {
    return native;
  } else {
    static_assert(sizeof(typename Native::value_type) == sizeof(char16_t));
    return wtf8_from_utf16(std::u16string_view(reinterpret_cast<const char16_t*>(native.data()), native.size()));
  }
}

[[noreturn]] void fail(sqlite3* db, const std::string& step) {
  throw Error("history: " + step + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
}

}  // namespace

Db::Db(const std::filesystem::path& path) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  const std::string name = utf8_name(path.native());
  if (sqlite3_open_v2(name.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw Error("history: cannot open " + name + ": " + why);
  }
  // Two runs finishing at once (parallel CI jobs on one host) wait instead of failing.
  sqlite3_busy_timeout(db_, 5000);
  exec("PRAGMA foreign_keys = ON");
  // WAL + NORMAL: a crash can lose the last commit, never corrupt the file; a commit does not wait for an fsync
  // (https://www.sqlite.org/pragma.html#pragma_synchronous). One shape for every history file.
  exec("PRAGMA journal_mode = WAL");
  exec("PRAGMA synchronous = NORMAL");
}

Db::~Db() { sqlite3_close(db_); }

void Db::exec(const std::string& sql) {
  char* msg = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
    const std::string why = msg ? msg : "unknown error";
    sqlite3_free(msg);
    throw Error("history: " + why);
  }
}

std::int64_t Db::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }

Stmt::Stmt(Db& db, const std::string& sql) : db_(db.handle()) {
  if (sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &stmt_, nullptr) != SQLITE_OK)
    fail(db_, "prepare");
}

Stmt::~Stmt() { sqlite3_finalize(stmt_); }

Stmt& Stmt::bind(int i, std::string_view v) {
  if (sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT) != SQLITE_OK)
    fail(db_, "bind");
  return *this;
}

Stmt& Stmt::bind(int i, std::int64_t v) {
  if (sqlite3_bind_int64(stmt_, i, v) != SQLITE_OK) fail(db_, "bind");
  return *this;
}

Stmt& Stmt::bind(int i, double v) {
  if (sqlite3_bind_double(stmt_, i, v) != SQLITE_OK) fail(db_, "bind");
  return *this;
}

Stmt& Stmt::bind_null(int i) {
  if (sqlite3_bind_null(stmt_, i) != SQLITE_OK) fail(db_, "bind");
  return *this;
}

bool Stmt::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail(db_, "step");
}

void Stmt::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::string Stmt::text(int col) const {
  const auto* p = sqlite3_column_text(stmt_, col);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)))
           : std::string();
}

std::int64_t Stmt::integer(int col) const { return sqlite3_column_int64(stmt_, col); }
double Stmt::real(int col) const { return sqlite3_column_double(stmt_, col); }
bool Stmt::is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

Transaction::Transaction(Db& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }

Transaction::~Transaction() {
  if (!done_) {
    try {
      db_.exec("ROLLBACK");
    } catch (...) {  // a destructor must not throw; the connection's close rolls back anyway
    }
  }
}

void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace breakout::sql
