package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// EKS access entries and their access policy associations, add-ons and pod identity
// associations. moto 5.2.5 emulates EKS clusters but not these APIs, so the stand-in keeps them
// (and what moto's EKS lacks of the clusters it creates, eks_cluster.go) as a record of its own:
// in memory while a call runs, persisted to $STANDIN_STATE_DIR/aws-eks.json between calls (every
// `pulumi` command starts a new plugin process), guarded by an flock so two plugin processes never
// lose each other's writes. Every create, update and delete says so in the engine's output.
//
// What is real: the IAM roles they name are looked up in moto (EKS refuses an access entry for
// a principal that does not exist, and a pod identity association for a role that does not), and
// so is the cluster (clusterGate): EKS refuses all four on a cluster it does not have, and access
// entries and their policy associations on a cluster whose authentication mode is CONFIG_MAP.

type eksRecord struct {
	// Clusters: what moto's EKS lacks of each cluster the stand-in created (eks_cluster.go).
	Clusters                map[string]*clusterRecord `json:"clusters"`
	AccessEntries           map[string]map[string]any `json:"accessEntries"`
	AccessPolicies          map[string]map[string]any `json:"accessPolicyAssociations"`
	Addons                  map[string]map[string]any `json:"addons"`
	PodIdentityAssociations map[string]map[string]any `json:"podIdentityAssociations"`
}

type eksStore struct {
	mu   sync.Mutex
	path string
}

func newEKSStore(dir string) *eksStore {
	return &eksStore{path: filepath.Join(dir, "aws-eks.json")}
}

// with runs fn on the record under the process mutex and an exclusive file lock, and writes the
// record back when fn changed it.
func (s *eksStore) with(write bool, fn func(r *eksRecord) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		return err
	}
	lock, err := os.OpenFile(s.path+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) //nolint:errcheck

	r := &eksRecord{}
	data, err := os.ReadFile(s.path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return err
	default:
		if err := json.Unmarshal(data, r); err != nil {
			return fmt.Errorf("the %s's EKS record %s is corrupt: %w", standIn, s.path, err)
		}
	}
	for _, m := range []*map[string]map[string]any{&r.AccessEntries, &r.AccessPolicies, &r.Addons, &r.PodIdentityAssociations} {
		if *m == nil {
			*m = map[string]map[string]any{}
		}
	}
	if r.Clusters == nil {
		r.Clusters = map[string]*clusterRecord{}
	}
	if err := fn(r); err != nil {
		return err
	}
	if !write {
		return nil
	}
	out, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp := s.path + ".tmp"
	if err := os.WriteFile(tmp, out, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, s.path)
}

// get returns a copy of one record entry (nil when absent).
func (s *eksStore) get(table func(*eksRecord) map[string]map[string]any, id string) (map[string]any, error) {
	var out map[string]any
	err := s.with(false, func(r *eksRecord) error {
		if e, ok := table(r)[id]; ok {
			out = map[string]any{}
			for k, v := range e {
				out[k] = v
			}
		}
		return nil
	})
	return out, err
}

func accessEntries(r *eksRecord) map[string]map[string]any  { return r.AccessEntries }
func accessPolicies(r *eksRecord) map[string]map[string]any { return r.AccessPolicies }
func addons(r *eksRecord) map[string]map[string]any         { return r.Addons }
func podIdentities(r *eksRecord) map[string]map[string]any  { return r.PodIdentityAssociations }

func nowRFC3339() string { return time.Now().UTC().Format(time.RFC3339) }

func randomID(n int) string {
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = chars[int(b[i])%len(chars)]
	}
	return string(b)
}

func uuidLike() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// readRecorded reads an entry of one of the record's tables (nothing when it is gone).
func readRecorded(table func(*eksRecord) map[string]map[string]any) func(context.Context, *call, string, pmap) (pmap, error) {
	return func(_ context.Context, c *call, id string, _ pmap) (pmap, error) {
		e, err := c.p.eks.get(table, id)
		if e == nil || err != nil {
			return nil, err
		}
		return entryOutputs(e), nil
	}
}

// deleteRecorded removes an entry from one of the record's tables.
func deleteRecorded(table func(*eksRecord) map[string]map[string]any) func(context.Context, *call, string, pmap) error {
	return func(ctx context.Context, c *call, id string, _ pmap) error {
		err := c.p.eks.with(true, func(r *eksRecord) error { delete(table(r), id); return nil })
		if err == nil {
			c.inMemory(ctx, "deleted")
		}
		return err
	}
}

// entryOutputs turns a record entry (JSON values) into outputs.
func entryOutputs(e map[string]any) pmap {
	return resource.NewPropertyMapFromMap(e)
}

func tagsAny(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func stringsAny(items []string) []any {
	out := []any{}
	for _, s := range items {
		out = append(out, s)
	}
	return out
}

// roleExists checks an IAM role ARN against moto, as EKS checks principals and roles.
func roleExists(ctx context.Context, c *call, roleArn string) (bool, error) {
	i := strings.Index(roleArn, ":role/")
	if i < 0 {
		return true, nil // not a role (a user, say): nothing the stand-in can check
	}
	name := roleArn[strings.LastIndex(roleArn, "/")+1:]
	_, err := c.aws().iam.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(name)})
	if isNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// clusterGate is EKS's check of the cluster an entry names: it must exist (in the stand-in's
// record, or only in moto: a cluster created through moto's API directly), else
// ResourceNotFoundException (moto's message, "obtained through cURL responses from the actual
// APIs", moto/eks/models.py CLUSTER_NOT_FOUND_MSG); and, for access entries and access policy
// associations (needsAPI), its authentication mode must offer the access-entry API (the
// InvalidRequestException EKS returns, as reported in aws-ia/terraform-aws-eks-blueprints#1877).
// A cluster only moto knows has no access configuration anyone recorded (moto drops it): it has
// the EKS API's default, CONFIG_MAP (clusterModeOf).
func clusterGate(ctx context.Context, c *call, cluster, what, op, id string, needsAPI bool) error {
	prefix := "creating " + what
	if id != "" {
		prefix += " (" + id + ")"
	}
	rec, err := c.p.recordedCluster(cluster)
	if err != nil {
		return err
	}
	if rec == nil {
		_, err := c.aws().eks.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(cluster)})
		if isNotFound(err) {
			return fmt.Errorf("%s: %s", prefix, apiError("EKS", op, 404, "ResourceNotFoundException", "No cluster found for name: "+cluster+"."))
		}
		if err != nil {
			return err
		}
	}
	if needsAPI && clusterModeOf(rec) == "CONFIG_MAP" {
		return fmt.Errorf("%s: %s", prefix, apiError("EKS", op, 400, "InvalidRequestException",
			"The cluster's authentication mode must be set to one of [API, API_AND_CONFIG_MAP] to perform this operation."))
	}
	return nil
}

// clusterModeOf is a cluster's authentication mode: its record's, or, for a cluster only moto
// knows, the EKS API's default (CreateAccessConfigRequest: CONFIG_MAP).
func clusterModeOf(rec *clusterRecord) string {
	if rec == nil {
		return "CONFIG_MAP"
	}
	return rec.AuthenticationMode
}

// ---- aws:eks/accessEntry:AccessEntry ------------------------------------------------------

// accessEntryType_Values of internal/service/eks/consts.go (the stored copy that lists EC2, for
// EKS Auto Mode nodes, and HYBRID_LINUX).
var accessEntryTypes = []string{"EC2", "EC2_LINUX", "EC2_WINDOWS", "FARGATE_LINUX", "HYBRID_LINUX", "STANDARD"}

// accessEntryTypesWithPolicies take access policy associations: EKS refuses them on the other
// node types ("This operation can only be performed on Access Entries with a type of
// STANDARD"), and EKS Auto Mode associates AmazonEKSAutoNodePolicy with EC2 entries.
var accessEntryTypesWithPolicies = []string{"STANDARD", "EC2"}

var accessEntryOps = ops{
	check: func(in pmap) []*pulumirpc.CheckFailure {
		var out []*pulumirpc.CheckFailure
		if t := str(in, "type"); t != "" && !contains(accessEntryTypes, t) {
			out = append(out, failure("type", "expected type to be one of %v, got %s", accessEntryTypes, t))
		}
		if v := str(in, "principalArn"); v != "" && !strings.HasPrefix(v, "arn:") {
			out = append(out, failure("principalArn", "%q (%s) is an invalid ARN", "principalArn", v))
		}
		return out
	},
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		cluster, principal := str(in, "clusterName"), str(in, "principalArn")
		id := cluster + ":" + principal
		if err := clusterGate(ctx, c, cluster, "EKS Access Entry", "CreateAccessEntry", id, true); err != nil {
			return "", err
		}
		ok, err := roleExists(ctx, c, principal)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", fmt.Errorf("creating EKS Access Entry (%s): InvalidParameterException: The specified principalArn is invalid: invalid principal (the %s looked the role up in moto's IAM)", id, standIn)
		}
		typ := strOr(in, "type", "STANDARD")
		user := str(in, "userName")
		groups := stringList(in, "kubernetesGroups")
		switch {
		case user != "":
		case typ == "EC2_LINUX" || typ == "EC2_WINDOWS" || typ == "EC2":
			user = "system:node:{{EC2PrivateDNSName}}" // what EKS answers for node entries
		case typ == "FARGATE_LINUX":
			user = "system:node:{{SessionName}}"
		default:
			user = principal
		}
		err = c.p.eks.with(true, func(r *eksRecord) error {
			if _, exists := r.AccessEntries[id]; exists {
				return fmt.Errorf("creating EKS Access Entry (%s): ResourceInUseException: The specified access entry resource is already in use on this cluster", id)
			}
			account, name := accountAndName(principal)
			now := nowRFC3339()
			r.AccessEntries[id] = map[string]any{
				"accessEntryArn":   fmt.Sprintf("arn:%s:eks:%s:%s:access-entry/%s/role/%s/%s/%s", c.partition(), c.region(), account, cluster, account, name, uuidLike()),
				"clusterName":      cluster,
				"createdAt":        now,
				"kubernetesGroups": stringsAny(groups),
				"modifiedAt":       now,
				"principalArn":     principal,
				"tags":             tagsAny(stringMap(in, "tags")),
				"tagsAll":          tagsAny(stringMap(in, "tags")),
				"type":             typ,
				"userName":         user,
			}
			return nil
		})
		if err != nil {
			return "", err
		}
		c.inMemory(ctx, "created")
		return id, nil
	},
	read: readRecorded(accessEntries),
	update: func(ctx context.Context, c *call, id string, _, _, newIn pmap) error {
		err := c.p.eks.with(true, func(r *eksRecord) error {
			e, ok := r.AccessEntries[id]
			if !ok {
				return fmt.Errorf("updating EKS Access Entry (%s): ResourceNotFoundException", id)
			}
			if has(newIn, "kubernetesGroups") {
				e["kubernetesGroups"] = stringsAny(stringList(newIn, "kubernetesGroups"))
			}
			if has(newIn, "userName") {
				e["userName"] = str(newIn, "userName")
			}
			e["tags"] = tagsAny(stringMap(newIn, "tags"))
			e["tagsAll"] = e["tags"]
			e["modifiedAt"] = nowRFC3339()
			return nil
		})
		if err == nil {
			c.inMemory(ctx, "updated")
		}
		return err
	},
	delete: deleteRecorded(accessEntries),
}

// ---- aws:eks/accessPolicyAssociation:AccessPolicyAssociation -----------------------------

var accessPolicyAssociationOps = ops{
	check: func(in pmap) []*pulumirpc.CheckFailure {
		var out []*pulumirpc.CheckFailure
		if v := str(in, "policyArn"); v != "" && !strings.HasPrefix(v, "arn:") {
			out = append(out, failure("policyArn", "%q (%s) is an invalid ARN", "policyArn", v))
		}
		if v, ok := in["accessScope"]; ok && v.IsObject() {
			if t := str(v.ObjectValue(), "type"); t != "" && t != "cluster" && t != "namespace" {
				out = append(out, failure("accessScope.type", "expected type to be one of [cluster namespace], got %s", t))
			}
		}
		return out
	},
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		cluster, principal, policy := str(in, "clusterName"), str(in, "principalArn"), str(in, "policyArn")
		// terraform's id: <cluster>#<principal>#<policy>.
		id := cluster + "#" + principal + "#" + policy
		scope := map[string]any{}
		if v, ok := in["accessScope"]; ok && v.IsObject() {
			scope = v.ObjectValue().Mappable()
		}
		if err := clusterGate(ctx, c, cluster, "EKS Access Policy Association", "AssociateAccessPolicy", id, true); err != nil {
			return "", err
		}
		err := c.p.eks.with(true, func(r *eksRecord) error {
			entry, ok := r.AccessEntries[cluster+":"+principal]
			if !ok {
				return fmt.Errorf("creating EKS Access Policy Association (%s): ResourceNotFoundException: The specified principalArn could not be found (no access entry)", id)
			}
			if typ, _ := entry["type"].(string); !contains(accessEntryTypesWithPolicies, typ) {
				return fmt.Errorf("creating EKS Access Policy Association (%s): InvalidParameterException: This operation can only be performed on Access Entries with a type of \"STANDARD\" (this one is %s)", id, typ)
			}
			if _, exists := r.AccessPolicies[id]; exists {
				return fmt.Errorf("creating EKS Access Policy Association (%s): ResourceInUseException", id)
			}
			now := nowRFC3339()
			r.AccessPolicies[id] = map[string]any{
				"accessScope": scope, "associatedAt": now, "clusterName": cluster,
				"modifiedAt": now, "policyArn": policy, "principalArn": principal,
			}
			return nil
		})
		if err != nil {
			return "", err
		}
		c.inMemory(ctx, "created")
		return id, nil
	},
	read:   readRecorded(accessPolicies),
	delete: deleteRecorded(accessPolicies),
}

// accountAndName are the account and the last path segment of an IAM ARN.
func accountAndName(a string) (string, string) {
	parts := strings.SplitN(a, ":", 6)
	account := ""
	if len(parts) == 6 {
		account = parts[4]
	}
	return account, a[strings.LastIndex(a, "/")+1:]
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// ---- aws:eks/addon:Addon ------------------------------------------------------------------

// standInAddonVersion is the version recorded for an add-on created without one. Real EKS
// picks the default version for the cluster's Kubernetes version; the stand-in has no catalog
// of add-on versions, and says so in the value rather than invent a real-looking one.
const standInAddonVersion = "v0.0.0-standin"

func addonEntry(c *call, in pmap, cluster, name string) map[string]any {
	var pias []any
	for _, p := range objectList(in, "podIdentityAssociations") {
		pias = append(pias, map[string]any{"roleArn": str(p, "roleArn"), "serviceAccount": str(p, "serviceAccount")})
	}
	e := map[string]any{
		"addonName":           name,
		"addonVersion":        strOr(in, "addonVersion", standInAddonVersion),
		"clusterName":         cluster,
		"configurationValues": str(in, "configurationValues"),
		"tags":                tagsAny(stringMap(in, "tags")),
		"tagsAll":             tagsAny(stringMap(in, "tags")),
	}
	if pias != nil {
		e["podIdentityAssociations"] = pias
	}
	for _, k := range []string{"preserve"} {
		if v, ok := boolean(in, k); ok {
			e[k] = v
		}
	}
	for _, k := range []string{"resolveConflicts", "resolveConflictsOnCreate", "resolveConflictsOnUpdate", "serviceAccountRoleArn"} {
		if has(in, k) {
			e[k] = str(in, k)
		}
	}
	return e
}

var addonOps = ops{
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		cluster, name := str(in, "clusterName"), str(in, "addonName")
		id := cluster + ":" + name
		if err := clusterGate(ctx, c, cluster, "EKS Add-On", "CreateAddon", id, false); err != nil {
			return "", err
		}
		err := c.p.eks.with(true, func(r *eksRecord) error {
			if _, exists := r.Addons[id]; exists {
				return fmt.Errorf("creating EKS Add-On (%s): ResourceInUseException: Addon already exists", id)
			}
			e := addonEntry(c, in, cluster, name)
			now := nowRFC3339()
			e["arn"] = fmt.Sprintf("arn:%s:eks:%s:%s:addon/%s/%s/%s", c.partition(), c.region(), c.account(ctx), cluster, name, uuidLike())
			e["createdAt"], e["modifiedAt"] = now, now
			r.Addons[id] = e
			return nil
		})
		if err != nil {
			return "", err
		}
		c.inMemory(ctx, "created")
		return id, nil
	},
	read: readRecorded(addons),
	update: func(ctx context.Context, c *call, id string, _, _, newIn pmap) error {
		err := c.p.eks.with(true, func(r *eksRecord) error {
			old, ok := r.Addons[id]
			if !ok {
				return fmt.Errorf("updating EKS Add-On (%s): ResourceNotFoundException", id)
			}
			e := addonEntry(c, newIn, old["clusterName"].(string), old["addonName"].(string))
			if !has(newIn, "addonVersion") {
				e["addonVersion"] = old["addonVersion"]
			}
			e["arn"], e["createdAt"], e["modifiedAt"] = old["arn"], old["createdAt"], nowRFC3339()
			r.Addons[id] = e
			return nil
		})
		if err == nil {
			c.inMemory(ctx, "updated")
		}
		return err
	},
	delete: deleteRecorded(addons),
}

// ---- aws:eks/podIdentityAssociation:PodIdentityAssociation --------------------------------

var podIdentityOps = ops{
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		cluster, role := str(in, "clusterName"), str(in, "roleArn")
		if err := clusterGate(ctx, c, cluster, "EKS Pod Identity Association", "CreatePodIdentityAssociation", "", false); err != nil {
			return "", err
		}
		ok, err := roleExists(ctx, c, role)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", fmt.Errorf("creating EKS Pod Identity Association: InvalidParameterException: Role provided in the request does not exist (the %s looked %s up in moto's IAM)", standIn, role)
		}
		id := "a-" + randomID(17)
		err = c.p.eks.with(true, func(r *eksRecord) error {
			for _, e := range r.PodIdentityAssociations {
				if e["clusterName"] == cluster && e["namespace"] == str(in, "namespace") && e["serviceAccount"] == str(in, "serviceAccount") {
					return fmt.Errorf("creating EKS Pod Identity Association: ResourceInUseException: Association already exists: %s", e["associationId"])
				}
			}
			r.PodIdentityAssociations[id] = map[string]any{
				"associationArn": fmt.Sprintf("arn:%s:eks:%s:%s:podidentityassociation/%s/%s", c.partition(), c.region(), c.account(ctx), cluster, id),
				"associationId":  id,
				"clusterName":    cluster,
				"namespace":      str(in, "namespace"),
				"roleArn":        role,
				"serviceAccount": str(in, "serviceAccount"),
				"tags":           tagsAny(stringMap(in, "tags")),
				"tagsAll":        tagsAny(stringMap(in, "tags")),
			}
			return nil
		})
		if err != nil {
			return "", err
		}
		c.inMemory(ctx, "created")
		return id, nil
	},
	read: readRecorded(podIdentities),
	update: func(ctx context.Context, c *call, id string, _, _, newIn pmap) error {
		if ok, err := roleExists(ctx, c, str(newIn, "roleArn")); err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("updating EKS Pod Identity Association (%s): InvalidParameterException: Role provided in the request does not exist", id)
			}
			return err
		}
		err := c.p.eks.with(true, func(r *eksRecord) error {
			e, ok := r.PodIdentityAssociations[id]
			if !ok {
				return fmt.Errorf("updating EKS Pod Identity Association (%s): ResourceNotFoundException", id)
			}
			e["roleArn"] = str(newIn, "roleArn")
			e["tags"] = tagsAny(stringMap(newIn, "tags"))
			e["tagsAll"] = e["tags"]
			return nil
		})
		if err == nil {
			c.inMemory(ctx, "updated")
		}
		return err
	},
	delete: deleteRecorded(podIdentities),
}
