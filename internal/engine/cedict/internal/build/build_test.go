package build

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sample is a few entries in CC-CEDICT's format, written for this test
// after the shapes of real entries.
const sample = `# CC-CEDICT test sample
#! version=1
#! entries=9
#! date=2025-01-01T00:00:00Z
刪除 删除 [shan1 chu2] /to delete/to cancel/
讀 读 [dou4] /comma/phrase marked by pause/
讀 读 [du2] /to read out; to read aloud/to read/to attend (school); to study (a subject in school)/
張三 张三 [Zhang1 San1] /Zhang San, name for an unspecified person, Mr So-and-so/
合並 合并 [he2 bing4] /variant of 合併|合并[he2 bing4]/
合併 合并 [he2 bing4] /to merge/to annex/
截圖 截图 [jie2 tu2] /(computing) screenshot; to take a screenshot/
文件 文件 [wen2 jian4] /document/file/CL:份[fen4]/
3D打印 3D打印 [san1 D da3 yin4] /to 3D print; 3D printing/
`

func TestBuild(t *testing.T) {
	text, st, err := Build([]byte(sample), DefaultOptions)
	require.NoError(t, err)
	var body []string
	for l := range strings.Lines(string(text)) {
		if !strings.HasPrefix(l, "#") {
			body = append(body, strings.TrimSuffix(l, "\n"))
		}
	}
	assert.Equal(t, []string{
		"删除\tdelete|cancel",
		"合并\tmerge|annex",                // the variant entry adds nothing
		"张三",                             // a name: a word, no translation
		"截图\tscreenshot|take screenshot", // "(computing)" and "to" dropped
		"文件\tdocument|file",              // the classifier is not a sense
		"读\tread out|read aloud|read|attend|study|comma", // the reading with more glosses first
	}, body)
	assert.Equal(t, Stats{Entries: 9, Headwords: 6, Translated: 5, Translations: 14}, st)
	assert.Contains(t, string(text), "# date 2025-01-01T00:00:00Z, 9 entries declared, 9 read\n")
	assert.Contains(t, string(text), "# sha256 ")

	again, _, err := Build([]byte(sample), DefaultOptions)
	require.NoError(t, err)
	assert.Equal(t, text, again)
	gz1, err := Gzip(text)
	require.NoError(t, err)
	gz2, err := Gzip(again)
	require.NoError(t, err)
	assert.Equal(t, gz1, gz2, "the gzip header carries no time")

	zipped, _, err := Build(gz1[:0], DefaultOptions)
	assert.Error(t, err, "no date header")
	assert.Nil(t, zipped)
}

func TestBuildRejectsBadLines(t *testing.T) {
	_, _, err := Build([]byte("#! date=x\n删除 删除 shan1 /to delete/\n"), DefaultOptions)
	assert.ErrorIs(t, err, ErrFormat)
	_, _, err = Build([]byte("#! date=x\n删除 删除 [shan1] /to delete\n"), DefaultOptions)
	assert.ErrorIs(t, err, ErrFormat)
}

func TestGloss(t *testing.T) {
	for in, want := range map[string]string{
		"to delete":                "delete",
		"(computing) database":     "database",
		"to look over":             "look over",
		"to call on sb":            "call on",
		"web page":                 "web page",
		"open-source":              "open-source",
		"Japan":                    "",
		"table of contents":        "",
		"9am–9pm":                  "",
		"to split the bill; to go": "",
		"":                         "",
	} {
		got, ok := gloss(in, DefaultOptions.MaxWords)
		assert.Equal(t, want != "", ok, in)
		assert.Equal(t, want, got, in)
	}
}
