// JSON written as it is produced (JsonStream) gives the bytes json_text gives the whole document, in
// pieces that never cut a character, so a streamed report is the report it was.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "dlldoctor/report/json_text.hpp"
#include "report/text_layout.hpp"

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
                {"ratio", -0.1},
                {"counts", {-3, 18446744073709551615ull}},
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
    out.put("ratio", Json(-0.1));
    out.put("counts", Json{-3, 18446744073709551615ull});
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
  CHECK(dlldoctor::report::safe_for_terminal(sink.text()) == sink.text());
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

TEST_CASE("scalars written straight from their values are the bytes json_text gives them") {
  // Every byte value alone and beside others, valid and invalid UTF-8, the C0 and C1 controls, DEL,
  // quotes and backslashes, characters cut short, and a C1 control next to a character that is not one.
  std::vector<std::string> texts = {"",
                                    "cudnn64_9.dll",
                                    "C:\\cudnn\\bin\\\"x\"",
                                    "tab\tnew\nline\rfeed\fback\b",
                                    "\x7f\xc2\x80\xc2\x9f\xc2\xa0\xc3\xa9",
                                    "日本語",
                                    "\xe6\x97",
                                    "\xc2",
                                    "a\xff\x7f"};
  for (int byte = 0; byte < 256; ++byte) {
    texts.push_back(std::string(1, static_cast<char>(byte)));
    texts.push_back("a" + std::string(1, static_cast<char>(byte)) + "\xc2\x85z");
    // Past the eight bytes a run of printable ASCII is read at a time, in every place of a word.
    for (std::size_t place : {8u, 13u, 23u})
      texts.push_back(std::string(place, 'x') + std::string(1, static_cast<char>(byte)) + std::string(9, 'y'));
  }
  for (const std::string& text : texts) {
    StringSink sink;
    {
      JsonStream out(sink);
      out.open_object();
      out.put_text(text, text);
      out.put_number("number", 18446744073709551615ull);
      out.put_bool("yes", true);
      out.put_bool("no", false);
      out.put_null("none");
      out.open_array("list");
      out.put_text({}, text);
      out.close();
      out.close();
    }
    const Json whole = {{text, text},      {"number", 18446744073709551615ull},
                        {"yes", true},     {"no", false},
                        {"none", nullptr}, {"list", {text}}};
    CHECK_MESSAGE(sink.text() == json_text(whole), "text of " << text.size() << " bytes");
    // The JSON writers skip the terminal filter (Writer::escapes_controls): it must have nothing to do.
    CHECK(dlldoctor::report::safe_for_terminal(sink.text()) == sink.text());
  }
}
