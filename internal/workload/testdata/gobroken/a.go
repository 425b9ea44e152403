// Package broken does not compile: go-build's tests check that the
// compiler's last lines reach the error.
package broken

func Broken() int { return undefinedName }
