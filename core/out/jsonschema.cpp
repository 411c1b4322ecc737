#include "core/out/jsonschema.h"

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

namespace ibcore {

namespace {

using Json = nlohmann::ordered_json;

// What the instances of one place in the document (a member, an array's
// elements) were, all of them together.
struct Schema {
  enum Type : unsigned { Null = 1, Bool = 2, Int = 4, Num = 8, Str = 16, Obj = 32, Arr = 64 };
  struct Member;

  unsigned types = 0;
  unsigned strings = 0, guids = 0;  // strings seen, of them GUID-like
  bool enumeration = false;
  unsigned objects = 0;          // instances that were objects
  std::vector<Member> members;   // the objects' members, first seen first
  std::unique_ptr<Schema> items;  // the arrays' elements

  static bool guid_like(const std::string& s) {
    return s.size() == 18 && s[0] == '0' && s[1] == 'x' &&
           std::all_of(s.begin() + 2, s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
  }

  void note(const Json& v);
  Json emit() const;
};

struct Schema::Member {
  std::string key;
  unsigned seen = 0;
  std::unique_ptr<Schema> s = std::make_unique<Schema>();
};

void Schema::note(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null: types |= Null; break;
    case Json::value_t::boolean: types |= Bool; break;
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: types |= Int; break;
    case Json::value_t::number_float: types |= Num; break;
    case Json::value_t::string:
      types |= Str;
      ++strings;
      guids += guid_like(v.get_ref<const std::string&>());
      break;
    case Json::value_t::object:
      types |= Obj;
      ++objects;
      for (const auto& item : v.items()) {
        // (Not a structured binding: clang 14, the sanitized build's, cannot
        // capture one in a lambda.)
        const std::string& k = item.key();
        const Json& m = item.value();
        auto it = std::find_if(members.begin(), members.end(), [&](const Member& x) { return x.key == k; });
        if (it == members.end()) it = members.insert(members.end(), Member{k});
        ++it->seen;
        it->s->note(m);
        auto raw = v.find(k + "Raw");
        if (m.is_string() && raw != v.end() && raw->is_number_integer()) it->s->enumeration = true;
      }
      break;
    case Json::value_t::array:
      types |= Arr;
      if (!items) items = std::make_unique<Schema>();
      for (const auto& e : v) items->note(e);
      break;
    default: break;  // (binary, discarded: never parsed from text)
  }
}

Json Schema::emit() const {
  static constexpr std::pair<Type, const char*> NAMES[] = {{Obj, "object"}, {Arr, "array"},   {Str, "string"},
                                                           {Int, "integer"}, {Num, "number"}, {Bool, "boolean"},
                                                           {Null, "null"}};
  Json out = Json::object();
  Json type = Json::array();
  for (auto [t, name] : NAMES)
    if ((types & t) && !(t == Int && (types & Num))) type.push_back(name);  // (a number may be integral)
  if (type.size() == 1) out["type"] = type[0];
  else if (!type.empty()) out["type"] = type;
  if (strings && guids == strings) out["format"] = "guid";
  if (enumeration) out["description"] = "an enumeration's name; its raw value is the member named with Raw after it";
  if (types & Obj) {
    Json props = Json::object(), required = Json::array();
    for (const Member& m : members) {
      props[m.key] = m.s->emit();
      if (m.seen == objects) required.push_back(m.key);
    }
    out["properties"] = std::move(props);
    if (!required.empty()) out["required"] = std::move(required);
  }
  if ((types & Arr) && items && items->types) out["items"] = items->emit();
  return out;
}

}  // namespace

std::string json_schema_of(std::string_view doc, bool pretty) {
  Json d;
  try {
    d = Json::parse(doc.begin(), doc.end());
  } catch (const Json::parse_error& e) {
    throw std::invalid_argument(std::string("not one JSON document: ") + e.what());
  }
  Schema s;
  s.note(d);
  Json out = Json::object();
  out["$schema"] = "https://json-schema.org/draft/2020-12/schema";
  Json body = s.emit();
  for (auto& [k, v] : body.items()) out[k] = std::move(v);
  return out.dump(pretty ? 2 : -1) + "\n";
}

}  // namespace ibcore
