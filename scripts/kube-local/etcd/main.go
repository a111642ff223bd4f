// The etcd server of the Kubernetes release in ../go.mod (its etcdmain package, as etcd's own
// binary runs it), so that the control plane's store is built the same way as the rest of it.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
