// Package budget measures requests — characters, bytes and tokens per
// section, exact with a tokenizer or estimates marked as such — and keeps the
// savings account of deferral.
//
// It never invents a number it cannot measure.
package budget
