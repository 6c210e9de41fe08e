package com.pulumi.eks;

import com.pulumi.core.Output;
import com.pulumi.eks.outputs.CoreData;
import com.pulumi.resources.ComponentResource;
import com.pulumi.resources.ComponentResourceOptions;

/**
 * Compile-time stand-in for pulumi-eks 4.3.0's com.pulumi.eks.Cluster (its generated Java SDK),
 * which the Maven Central this project's checks reach does not serve: only the members the
 * documentation's Java programs use, with pulumi-eks's signatures. Never run, never published
 * (tests/docs-code/docs.sh; CONTRIBUTING.md, Code in the documentation).
 */
public class Cluster extends ComponentResource {
    private Output<CoreData> core;
    private Output<com.pulumi.aws.eks.Cluster> eksCluster;
    private Output<String> kubeconfigJson;
    private Output<String> oidcProviderArn;

    public Cluster(String name, ClusterArgs args, ComponentResourceOptions options) {
        super("eks:index:Cluster", name, args, options, true);
    }

    public Output<CoreData> core() {
        return this.core;
    }

    public Output<com.pulumi.aws.eks.Cluster> eksCluster() {
        return this.eksCluster;
    }

    public Output<String> kubeconfigJson() {
        return this.kubeconfigJson;
    }


    public Output<String> oidcProviderArn() {
        return this.oidcProviderArn;
    }
}
