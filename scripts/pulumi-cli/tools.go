//go:build tools

// Package tools pins the Pulumi CLI's module so that `go build` in this
// wrapper module builds `pulumi` at the version in go.mod (see
// scripts/pulumi-install.ts). `go install pkg@version` refuses the CLI's
// module because its go.mod has replace directives; in a wrapper module
// they do not apply, so the build goes through.
package tools

import _ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
