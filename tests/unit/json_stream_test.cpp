// JSON written as it is produced (JsonStream) gives the bytes json_text gives the whole document, in
// pieces that never cut a character, so a streamed report is the report it was.
#include <doctest/doctest.h>

#include <string>

#include "dlldoctor/report/json_text.hpp"

using Json = nlohmann::ordered_json;
using dlldoctor::report::json_text;
using dlldoctor::report::JsonStream;
using dlldoctor::report::Sink;
using dlldoctor::report::StringSink;

namespace {

// Counts the pieces a stream hands over, and checks each ends between two UTF-8 characters.
class Pieces : public Sink {
 public:
  void put(std::string_view text) override {
    ++count;
    whole += text;
    CHECK_FALSE(text.empty());
    CHECK((static_cast<unsigned char>(text.back()) & 0xC0) != 0xC0);   // not a character's first byte
    CHECK((static_cast<unsigned char>(text.front()) & 0xC0) != 0x80);  // nor the rest of one
  }
  std::string whole;
  int count = 0;
};

}  // namespace

TEST_CASE("a streamed object of arrays, objects, empty containers and hostile strings is json_text's bytes") {
  const Json module = {{"name", "cudnn64_9.dll"}, {"path", "C:\\cudnn\\bin\\x\ny"}, {"bad", std::string("a\xff\x7f")}};
  Json whole = {{"schema", "dlldoctor.report/1"},
                {"empty_list", Json::array()},
                {"empty_object", Json::object()},
                {"modules", {module, module}},
                {"none", nullptr},
                {"nested", {{"a", {1, 2, {{"b", Json::array()}}}}}},
                {std::string("key\xfe"), true}};
  StringSink sink;
  {
    JsonStream out(sink);
    out.open_object();
    out.put("schema", Json("dlldoctor.report/1"));
    out.open_array("empty_list");
    out.close();
    out.open_object("empty_object");
    out.close();
    out.open_array("modules");
    out.put(module);
    out.put(module);
    out.close();
    out.put("none", Json(nullptr));
    out.open_object("nested");
    out.open_array("a");
    out.put(Json(1));
    out.put(Json(2));
    out.open_object();
    out.put("b", Json::array());
    out.close();
    out.close();
    out.close();
    out.put(std::string("key\xfe"), Json(true));
    out.close();
  }
  CHECK(sink.text() == json_text(whole));
}

TEST_CASE("a streamed value or array as the whole document") {
  StringSink one;
  JsonStream(one).put(Json{{"path", "a.dll"}});
  CHECK(one.text() == json_text(Json{{"path", "a.dll"}}));
  StringSink none;
  {
    JsonStream out(none);
    out.open_array();
    out.close();
  }
  CHECK(none.text() == "[]\n");
}

TEST_CASE("a long document goes out in pieces, each cut between characters") {
  Pieces pieces;
  Json whole = Json::array();
  {
    JsonStream out(pieces);
    out.open_array();
    for (int i = 0; i < 5000; ++i) {
      const Json item = {{"name", "日本語のDLL名前" + std::to_string(i)}, {"index", i}};
      whole.push_back(item);
      out.put(item);
    }
    out.close();
  }
  CHECK(pieces.count > 2);
  CHECK(pieces.whole == json_text(whole));
}
