# syntax=docker/sandbox-kit:3
# kit:
#   schemaVersion: "3"
#   kind: workload
#   displayName: Comment-descriptor test workload
#   description: A workload whose descriptor is a comment block in its Dockerfile.
#   author: kitsmith tests <tests@kitsmith.example>
#   version: "0.2.0"
#   provides: [io.kitsmith.test/comment]
FROM scratch
COPY hello /bin/hello
CMD ["/bin/hello"]
