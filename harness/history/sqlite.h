// A thin RAII layer over sqlite3: a connection, prepared statements, transactions; failures throw Error.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace breakout::sql {

class Db {
 public:
  // Opens or creates the file (and its parent directories) in WAL mode, synchronous NORMAL; throws Error.
  explicit Db(const std::filesystem::path& path);
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  ~Db();

  void exec(const std::string& sql);  // one or more statements without parameters
  std::int64_t last_insert_rowid() const;
  sqlite3* handle() const { return db_; }

 private:
  sqlite3* db_ = nullptr;
};

// A prepared statement; bind() by 1-based index, step() until it returns false.
class Stmt {
 public:
  Stmt(Db& db, const std::string& sql);
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  ~Stmt();

  Stmt& bind(int i, std::string_view v);
  Stmt& bind(int i, std::int64_t v);
  Stmt& bind(int i, int v) { return bind(i, static_cast<std::int64_t>(v)); }
  Stmt& bind(int i, double v);
  Stmt& bind_null(int i);

  bool step();   // true while a row is available
  void reset();  // for re-use with new bindings

  std::string text(int col) const;
  std::int64_t integer(int col) const;
  double real(int col) const;
  bool is_null(int col) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN IMMEDIATE ... COMMIT, rolled back unless commit() was called.
class Transaction {
 public:
  explicit Transaction(Db& db);
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();
  void commit();

 private:
  Db& db_;
  bool done_ = false;
};

}  // namespace breakout::sql
