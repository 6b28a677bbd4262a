#include "libvirt/xml_doc.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace storbed {
namespace {

TEST(XmlDocTest, FirstGivesTheDecodedValueOfTheFirstNodeSelected) {
  const auto doc = XmlDoc::Parse(
      "<a><b k='1 &amp; &#x32;'>x&lt;y</b><b k=\"2\">z</b><c><![CDATA[<raw>]]></c></a>");
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->First("/a/b/@k"), "1 & 2");
  EXPECT_EQ(doc->First("/a/b"), "x<y");
  EXPECT_EQ(doc->First("/a/b[2]"), "z");
  EXPECT_EQ(doc->First("/a/c"), "<raw>");
  EXPECT_EQ(doc->First("count(/a/b)"), "2");
  EXPECT_FALSE(doc->First("/a/missing"));
  EXPECT_FALSE(doc->First("/a/b/@missing"));
  EXPECT_THROW(doc->First("/a/["), std::invalid_argument);
}

TEST(XmlDocTest, NamespacesAreMatchedByUriNotByPrefix) {
  const auto doc = XmlDoc::Parse("<a xmlns:p='urn:x'><p:e v='1'/><e v='2'/></a>");
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->First("//q:e/@v", {{"q", "urn:x"}}), "1");
  EXPECT_EQ(doc->First("//e/@v"), "2");
}

TEST(XmlDocTest, AnyValueContainsLooksAtAttributesAndTextNotNames) {
  const auto doc = XmlDoc::Parse("<disk><source file='/p/a&amp;b'/><t>/p/c&#60;d</t></disk>");
  ASSERT_TRUE(doc);
  EXPECT_TRUE(doc->AnyValueContains("/p/a&b"));
  EXPECT_TRUE(doc->AnyValueContains("c<d"));
  EXPECT_FALSE(doc->AnyValueContains("a&amp;b"));
  EXPECT_FALSE(doc->AnyValueContains("source"));
}

TEST(XmlDocTest, TextThatIsNotWellFormedIsNotADocument) {
  EXPECT_FALSE(XmlDoc::Parse(""));
  EXPECT_FALSE(XmlDoc::Parse("<a><b></a>"));
  EXPECT_FALSE(XmlDoc::Parse("<a x='1' x='2'/>"));
}

// libvirt's XML comes from a daemon that may be remote: a DTD's external entity must not
// read a local file into a value.
TEST(XmlDocTest, ExternalEntitiesAreNotLoaded) {
  const std::string secret = ::testing::TempDir() + "xml_doc_test-secret";
  std::ofstream(secret) << "secret-content";
  const auto doc =
      XmlDoc::Parse("<!DOCTYPE d [<!ENTITY e SYSTEM 'file://" + secret + "'>]><d v='1'>&e;</d>");
  if (doc) {
    EXPECT_EQ(doc->First("/d").value_or("").find("secret-content"), std::string::npos);
    EXPECT_FALSE(doc->AnyValueContains("secret-content"));
  }
  std::filesystem::remove(secret);
}

}  // namespace
}  // namespace storbed
