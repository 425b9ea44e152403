// Copyright ©2020 The go-fonts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package liberation holds TTF data of the Liberation fonts.
package liberation // import "codeberg.org/go-fonts/liberation"
