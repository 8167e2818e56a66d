// Package render is the pure rendering channel for built-in tool descriptions
// (templates), rendered once per session and frozen.
//
// It never writes back into a tool definition.
package render
