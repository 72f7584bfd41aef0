// executorch._C.tokenizers: the C++ tokenizers of libexecutorch_llm (pytorch/tokenizers/*.h) in Python, with the
// classes and methods of upstream's pytorch_tokenizers_cpp module (Tokenizer, HFTokenizer, Tiktoken, Tekken,
// Llama2cTokenizer, SPTokenizer, Error, TokenIndex), plus decode_tokens(ids) for a whole sequence and
// load_tokenizer(path) with upstream's probing order (llm_runner_helper.h). Failures raise RuntimeError with what
// the tokenizer logged (the file and what is wrong with it).
#include "tokenizers.h"

#include <executorch/extension/llm/runner/llm_runner_helper.h>
#include <pybind11/stl.h>
#include <pytorch/tokenizers/hf_tokenizer.h>
#include <pytorch/tokenizers/llama2c_tokenizer.h>
#include <pytorch/tokenizers/log.h>
#include <pytorch/tokenizers/sentencepiece.h>
#include <pytorch/tokenizers/tekken.h>
#include <pytorch/tokenizers/tiktoken.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;
using tokenizers::Error;
using tokenizers::Tokenizer;

namespace {

[[noreturn]] void raise(Error e, const std::string& what) {
  std::string msg = what + " failed (" + tokenizers::error_name(e) + ")";
  const char* detail = tokenizers::internal::last_error();
  if (detail != nullptr && detail[0] != '\0') msg += ": " + std::string(detail);
  throw std::runtime_error(msg);
}

template <typename T>
T unwrap(tokenizers::Result<T>&& r, const std::string& what) {
  if (!r.ok()) raise(r.error(), what);
  return std::move(r.get());
}

void load(Tokenizer& self, const std::string& path) {
  tokenizers::internal::clear_last_error();
  const Error e = [&] {
    py::gil_scoped_release release;
    return self.load(path);
  }();
  if (e != Error::Ok) raise(e, "loading tokenizer " + path);
}

std::vector<uint64_t> encode(const Tokenizer& self, const std::string& input, int8_t bos, int8_t eos) {
  tokenizers::internal::clear_last_error();
  auto r = [&] {
    py::gil_scoped_release release;
    return self.encode(input, bos, eos);
  }();
  return unwrap(std::move(r), "encoding");
}

// As upstream: the token's text on its own (str; a piece that ends inside a UTF-8 character raises
// UnicodeDecodeError, as upstream's binding does).
std::string decode(const Tokenizer& self, uint64_t token) {
  tokenizers::internal::clear_last_error();
  return unwrap(self.decode(token, token), "decoding token " + std::to_string(token));
}

// The text of a sequence that starts the text (after BOS): decode(prev, cur) over its pairs, BOS before the first;
// bytes that are not UTF-8 become U+FFFD.
py::str decode_tokens(const Tokenizer& self, const std::vector<uint64_t>& ids) {
  tokenizers::internal::clear_last_error();
  std::string out;
  uint64_t prev = self.bos_tok();
  for (uint64_t id : ids) {
    out += unwrap(self.decode(prev, id), "decoding token " + std::to_string(id));
    prev = id;
  }
  PyObject* text = PyUnicode_DecodeUTF8(out.data(), static_cast<Py_ssize_t>(out.size()), "replace");
  if (text == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(text);
}

}  // namespace

void bind_tokenizers(py::module_& parent) {
  py::module_ m = parent.def_submodule("tokenizers", "The C++ tokenizers (upstream's pytorch/tokenizers API).");
  py::enum_<Error>(m, "Error")
      .value("Ok", Error::Ok)
      .value("Internal", Error::Internal)
      .value("Uninitialized", Error::Uninitialized)
      .value("OutOfRange", Error::OutOfRange)
      .value("LoadFailure", Error::LoadFailure)
      .value("EncodeFailure", Error::EncodeFailure)
      .value("Base64DecodeFailure", Error::Base64DecodeFailure)
      .value("ParseFailure", Error::ParseFailure)
      .value("DecodeFailure", Error::DecodeFailure)
      .value("RegexFailure", Error::RegexFailure);
  py::class_<tokenizers::TokenIndex>(m, "TokenIndex")
      .def_readonly("str", &tokenizers::TokenIndex::str)
      .def_readonly("id", &tokenizers::TokenIndex::id);
  // Subclasses inherit load / encode / decode: the calls are virtual.
  py::class_<Tokenizer>(m, "Tokenizer")
      .def("load", &load, py::arg("tokenizer_path"))
      .def("encode", &encode, py::arg("input"), py::arg("bos") = 0, py::arg("eos") = 0)
      .def("decode", &decode, py::arg("token"))
      .def("decode_tokens", &decode_tokens, py::arg("ids"))
      .def("vocab_size", &Tokenizer::vocab_size)
      .def("bos_tok", &Tokenizer::bos_tok)
      .def("eos_tok", &Tokenizer::eos_tok)
      .def("is_loaded", &Tokenizer::is_loaded);
  py::class_<tokenizers::HFTokenizer, Tokenizer>(m, "HFTokenizer").def(py::init<>());
  py::class_<tokenizers::Tiktoken, Tokenizer>(m, "Tiktoken")
      .def(py::init<>())
      .def(py::init([](const std::vector<std::string>& special_tokens, size_t bos, size_t eos) {
             if (bos >= special_tokens.size() || eos >= special_tokens.size()) {
               throw py::value_error("bos_token_index and eos_token_index must index special_tokens");
             }
             return std::make_unique<tokenizers::Tiktoken>(special_tokens, bos, eos);
           }),
           py::arg("special_tokens"), py::arg("bos_token_index"), py::arg("eos_token_index"))
      .def(py::init(
               [](const std::string& pattern, const std::vector<std::string>& special_tokens, size_t bos, size_t eos) {
                 if (bos >= special_tokens.size() || eos >= special_tokens.size()) {
                   throw py::value_error("bos_token_index and eos_token_index must index special_tokens");
                 }
                 return std::make_unique<tokenizers::Tiktoken>(pattern, special_tokens, bos, eos);
               }),
           py::arg("pattern"), py::arg("special_tokens"), py::arg("bos_token_index"), py::arg("eos_token_index"));
  py::class_<tokenizers::Tekken, Tokenizer>(m, "Tekken")
      .def(py::init<>())
      .def("get_version", &tokenizers::Tekken::get_version);
  py::class_<tokenizers::Llama2cTokenizer, Tokenizer>(m, "Llama2cTokenizer").def(py::init<>());
  py::class_<tokenizers::SPTokenizer, Tokenizer>(m, "SPTokenizer").def(py::init<>());
  m.def(
      "load_tokenizer",
      [](const std::string& path) {
        tokenizers::internal::clear_last_error();
        std::unique_ptr<Tokenizer> tok;
        {
          py::gil_scoped_release release;
          tok = executorch::extension::llm::load_tokenizer(path);
        }
        if (tok == nullptr) {
          std::string msg = path +
                            ": not a tokenizer this library reads (tried Tekken for tekken.json, a Hugging Face "
                            "tokenizer.json, tiktoken, "
                            "SentencePiece and llama2.c)";
          const char* detail = tokenizers::internal::last_error();
          if (detail != nullptr && detail[0] != '\0') msg += "; last error: " + std::string(detail);
          throw std::runtime_error(msg);
        }
        return tok;
      },
      py::arg("tokenizer_path"));
}
