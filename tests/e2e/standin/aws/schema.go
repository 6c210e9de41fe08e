package main

import (
	"encoding/json"
	"strings"
)

// schemaJSON is a Pulumi package schema for exactly what the stand-in serves: its resource types
// (inputs and outputs as pulumi-aws 6.83.2 names them) and its functions. A YAML program that
// declares one of these types directly gets it from GetSchema, as from the real plugin; the
// full pulumi-aws schema is not reproduced.
func schemaJSON() (string, error) {
	typeSpec := func(k kind) map[string]any {
		switch k {
		case kInt:
			return map[string]any{"type": "integer"}
		case kBool:
			return map[string]any{"type": "boolean"}
		case kStringMap:
			return map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}}
		case kStringList:
			return map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
		case kObjectList:
			return map[string]any{"type": "array", "items": map[string]any{"$ref": "pulumi.json#/Any"}}
		case kObject:
			return map[string]any{"$ref": "pulumi.json#/Any"}
		}
		return map[string]any{"type": "string"}
	}
	resources := map[string]any{}
	for tok, t := range types {
		inputs, props := map[string]any{}, map[string]any{}
		var required []string
		for name, p := range t.inputs {
			if p.unsupported {
				continue
			}
			inputs[name] = typeSpec(p.kind)
			props[name] = typeSpec(p.kind)
			if p.required {
				required = append(required, name)
			}
		}
		for _, o := range t.outputs {
			props[o] = map[string]any{"type": "string"}
		}
		if t.tags {
			props["tagsAll"] = typeSpec(kStringMap)
		}
		for _, n := range []string{"attachmentCount"} {
			if _, ok := props[n]; ok {
				props[n] = map[string]any{"type": "integer"}
			}
		}
		desc := "Stand-in for pulumi-aws 6.83.2's " + tok + " (test only)."
		if t.inMemory != "" {
			desc += " Recorded in memory: " + t.inMemory + "."
		}
		resources[tok] = map[string]any{
			"description":     desc,
			"inputProperties": inputs,
			"properties":      props,
			"requiredInputs":  required,
		}
	}
	fn := func(args []string, outs ...string) map[string]any {
		in, out := map[string]any{}, map[string]any{}
		for _, a := range args {
			in[a] = map[string]any{"type": "string"}
		}
		for _, o := range outs {
			out[o] = map[string]any{"type": "string"}
		}
		return map[string]any{
			"description": "Stand-in (test only).",
			"inputs":      map[string]any{"properties": in},
			"outputs":     map[string]any{"properties": out},
		}
	}
	functions := map[string]any{
		"aws:index/getPartition:getPartition":           fn([]string{"id"}, "dnsSuffix", "id", "partition", "reverseDnsPrefix"),
		"aws:index/getRegion:getRegion":                 fn([]string{"endpoint", "id", "name"}, "description", "endpoint", "id", "name"),
		"aws:index/getCallerIdentity:getCallerIdentity": fn([]string{"id"}, "accountId", "arn", "id", "userId"),
		"aws:eks/getAddon:getAddon": fn([]string{"addonName", "clusterName"}, "addonName", "addonVersion", "arn",
			"clusterName", "configurationValues", "createdAt", "id", "modifiedAt", "serviceAccountRoleArn"),
		"aws:iam/getInstanceProfile:getInstanceProfile": fn([]string{"name"}, "arn", "createDate", "id", "name", "path",
			"roleArn", "roleId", "roleName"),
	}
	s := map[string]any{
		"name":        "aws",
		"displayName": "AWS (stand-in)",
		"version":     awsVersion,
		"description": "A " + standIn + ": a few pulumi-aws resources and functions, served against a local moto server.",
		"config": map[string]any{"variables": map[string]any{
			"region": map[string]any{"type": "string", "description": "The region (else AWS_REGION)."},
		}},
		"provider": map[string]any{
			"inputProperties": map[string]any{"region": map[string]any{"type": "string"}},
		},
		// As pulumi-aws's schema: lets programs write aws:iam:Role for aws:iam/role:Role.
		"meta":      map[string]any{"moduleFormat": "(.*)(?:/[^/]*)"},
		"resources": resources,
		"functions": functions,
		"language": map[string]any{
			"nodejs": map[string]any{"packageName": "@pulumi/aws"},
		},
	}
	out, err := json.Marshal(s)
	return strings.TrimSpace(string(out)), err
}
