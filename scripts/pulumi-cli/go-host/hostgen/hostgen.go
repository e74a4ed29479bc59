// Package hostgen is what our Go and Python language hosts (../main.go, ../pygen) share of
// the calls Pulumi's hosts answer with Pulumi's code generators: the CLI's schema loader,
// binding a schema or a program in Pulumi's intermediate language (PCL) as Pulumi's hosts
// do (sdk/go/pulumi-language-go and sdk/python/cmd/pulumi-language-python, main.go:
// GeneratePackage, GenerateProgram, GenerateProject, Link), and writing what a generator
// made. Each language gives its own generator; the answer's shape is the same.
package hostgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/blang/semver"
	"github.com/hashicorp/hcl/v2"
	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/syntax"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/pkg/v3/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// withLoader runs f with the CLI's schema loader at target (cached, as Pulumi's hosts use it).
func withLoader(target string, f func(schema.ReferenceLoader) error) error {
	client, err := schema.NewLoaderClient(target)
	if err != nil {
		return fmt.Errorf("connecting to the CLI's schema loader %q: %w", target, err)
	}
	defer client.Close()
	return f(schema.NewCachedLoader(client))
}

// bindOptions are Pulumi's hosts' for Go and Python: output-versioned invokes, and the
// lenient bind the CLI asks for with `pulumi import` (its code may name a parent or a
// provider the snippet does not declare).
func bindOptions(strict bool) []pcl.BindOption {
	opts := []pcl.BindOption{pcl.PreferOutputVersionedInvokes}
	if !strict {
		opts = append(opts, pcl.NonStrictBindOptions()...)
	}
	return opts
}

var rpcDiagnostics = plugin.HclDiagnosticsToRPCDiagnostics

// GeneratePackage answers `pulumi package gen-sdk`: the schema bound, gen's files written under the request's directory.
func GeneratePackage(
	req *pulumirpc.GeneratePackageRequest,
	gen func(pkg *schema.Package, loader schema.ReferenceLoader) (map[string][]byte, error),
) (*pulumirpc.GeneratePackageResponse, error) {
	var spec schema.PackageSpec
	if err := json.Unmarshal([]byte(req.GetSchema()), &spec); err != nil {
		return nil, fmt.Errorf("the schema is not a package schema: %w", err)
	}
	res := &pulumirpc.GeneratePackageResponse{}
	err := withLoader(req.GetLoaderTarget(), func(loader schema.ReferenceLoader) error {
		pkg, diags, err := schema.BindSpec(spec, loader, schema.ValidationOptions{AllowDanglingReferences: true})
		if err != nil {
			return err
		}
		res.Diagnostics = rpcDiagnostics(diags)
		if diags.HasErrors() {
			return nil
		}
		files, err := gen(pkg, loader)
		if err != nil {
			return err
		}
		return writeFiles(req.GetDirectory(), files)
	})
	return res, err
}

// GenerateProgram answers `pulumi import` (the code it prints or writes with --out): the PCL
// source files parsed and bound, and gen's files given back.
func GenerateProgram(
	req *pulumirpc.GenerateProgramRequest,
	gen func(*pcl.Program) (map[string][]byte, hcl.Diagnostics, error),
) (*pulumirpc.GenerateProgramResponse, error) {
	res := &pulumirpc.GenerateProgramResponse{}
	err := withLoader(req.GetLoaderTarget(), func(loader schema.ReferenceLoader) error {
		parser := syntax.NewParser()
		for name, text := range req.GetSource() {
			if err := parser.ParseFile(strings.NewReader(text), name); err != nil {
				return err
			}
		}
		if parser.Diagnostics.HasErrors() {
			res.Diagnostics = rpcDiagnostics(parser.Diagnostics)
			return nil
		}
		program, diags, err := pcl.BindProgram(parser.Files, loader, bindOptions(req.GetStrict())...)
		if err != nil {
			return err
		}
		res.Diagnostics = rpcDiagnostics(diags)
		if diags.HasErrors() {
			return nil
		}
		files, genDiags, err := gen(program)
		if err != nil {
			return err
		}
		res.Source = files
		res.Diagnostics = append(res.Diagnostics, rpcDiagnostics(genDiags)...)
		return nil
	})
	return res, err
}

// GenerateProject answers `pulumi convert` (and `pulumi import --generate-code` into a new
// project): the PCL directory bound, and gen writing the project into the target directory.
func GenerateProject(
	req *pulumirpc.GenerateProjectRequest,
	gen func(dir string, project workspace.Project, program *pcl.Program, localDependencies map[string]string) error,
) (*pulumirpc.GenerateProjectResponse, error) {
	var project workspace.Project
	if err := json.Unmarshal([]byte(req.GetProject()), &project); err != nil {
		return nil, fmt.Errorf("the project is not a Pulumi project: %w", err)
	}
	res := &pulumirpc.GenerateProjectResponse{}
	err := withLoader(req.GetLoaderTarget(), func(loader schema.ReferenceLoader) error {
		program, diags, err := pcl.BindDirectory(req.GetSourceDirectory(), loader, bindOptions(req.GetStrict())...)
		if err != nil {
			return err
		}
		res.Diagnostics = rpcDiagnostics(diags)
		if diags.HasErrors() {
			return nil
		}
		if program == nil {
			return errors.New("the program in " + req.GetSourceDirectory() + " did not bind")
		}
		return gen(req.GetTargetDirectory(), project, program, req.GetLocalDependencies())
	})
	return res, err
}

// Linked is a package `pulumi package add` links into a program: its SDK's directory
// (relative to the program's, as the CLI gives it) and its schema.
type Linked struct {
	Path    string
	Package *schema.Package
}

// LinkedPackages are the request's packages with their schemas (the `pulumi` SDK itself
// apart, as sdkPath: Pulumi's hosts link it under its own name), languages imported.
func LinkedPackages(
	ctx context.Context, req *pulumirpc.LinkRequest, languages map[string]schema.Language,
) (linked []Linked, sdkPath string, err error) {
	err = withLoader(req.GetLoaderTarget(), func(loader schema.ReferenceLoader) error {
		for _, dep := range req.GetPackages() {
			if dep.GetPackage().GetName() == "pulumi" {
				sdkPath = dep.GetPath()
				continue
			}
			pkg, err := loadPackage(ctx, loader, dep.GetPackage())
			if err != nil {
				return err
			}
			if err := pkg.ImportLanguages(languages); err != nil {
				return err
			}
			linked = append(linked, Linked{Path: dep.GetPath(), Package: pkg})
		}
		return nil
	})
	return linked, sdkPath, err
}

// loadPackage is the schema the CLI's loader has for a package dependency (a version that
// is not semver is left out, as Pulumi's hosts do).
func loadPackage(ctx context.Context, loader schema.ReferenceLoader, dep *pulumirpc.PackageDependency) (*schema.Package, error) {
	desc := &schema.PackageDescriptor{Name: dep.GetName(), DownloadURL: dep.GetServer()}
	if v, err := semver.New(dep.GetVersion()); err == nil {
		desc.Version = v
	}
	if p := dep.GetParameterization(); p != nil {
		desc.Parameterization = &schema.ParameterizationDescriptor{Name: p.GetName(), Value: p.GetValue()}
		if v, err := semver.New(p.GetVersion()); err == nil {
			desc.Parameterization.Version = *v
		}
	}
	ref, err := schema.LoadPackageReferenceV2(ctx, loader, desc)
	if err != nil {
		return nil, fmt.Errorf("loading the schema of package %s: %w", dep.GetName(), err)
	}
	return ref.Definition()
}

// writeFiles writes generated files under dir.
func writeFiles(dir string, files map[string][]byte) error {
	for name, data := range files {
		target := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
