// Package liberationserifbolditalic stands in for go-fonts' package of that name
// (third_party/liberation/README.md): sectax draws every chart in
// Liberation Sans Regular, so this face is that one and its own 0.3-0.4 MB
// are not linked into the binary.
package liberationserifbolditalic // import "codeberg.org/go-fonts/liberation/liberationserifbolditalic"

import "codeberg.org/go-fonts/liberation/liberationsansregular"

// TTF is the data of Liberation Sans Regular (see the package comment).
var TTF = liberationsansregular.TTF
