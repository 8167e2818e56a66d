// Package readme holds the code sample of the repository's README.md, so
// that it compiles and runs under go test and cannot drift from the API:
// TestReadmeMatches checks that the README shows exactly the lines between
// the README:begin and README:end markers of newChat in readme_test.go.
package readme
