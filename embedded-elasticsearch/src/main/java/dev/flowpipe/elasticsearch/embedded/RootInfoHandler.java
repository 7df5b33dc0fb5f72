package dev.flowpipe.elasticsearch.embedded;

import static org.elasticsearch.rest.RestRequest.Method.GET;
import static org.elasticsearch.rest.RestRequest.Method.HEAD;

import java.util.List;
import org.elasticsearch.Build;
import org.elasticsearch.client.internal.node.NodeClient;
import org.elasticsearch.cluster.metadata.Metadata;
import org.elasticsearch.cluster.service.ClusterService;
import org.elasticsearch.index.IndexVersion;
import org.elasticsearch.rest.BaseRestHandler;
import org.elasticsearch.rest.RestRequest;
import org.elasticsearch.rest.RestResponse;
import org.elasticsearch.rest.RestStatus;
import org.elasticsearch.xcontent.XContentBuilder;

/**
 * {@code GET /} and {@code HEAD /}: the node's name, cluster and version, as Elasticsearch answers them.
 *
 * <p>In a distribution this comes from the {@code rest-root} module, which is not published as an artifact; without
 * it {@code GET /} answers 405, and clients that start by asking the root (product and version detection) fail. The
 * body has the same fields as the module's.
 */
final class RootInfoHandler extends BaseRestHandler {

  private final String nodeName;
  private final ClusterService clusterService;

  RootInfoHandler(String nodeName, ClusterService clusterService) {
    this.nodeName = nodeName;
    this.clusterService = clusterService;
  }

  @Override
  public String getName() {
    return "flowpipe_main_action";
  }

  @Override
  public List<Route> routes() {
    return List.of(new Route(GET, "/"), new Route(HEAD, "/"));
  }

  @Override
  public boolean canTripCircuitBreaker() {
    return false;
  }

  @Override
  protected RestChannelConsumer prepareRequest(RestRequest request, NodeClient client) {
    return channel -> {
      Metadata metadata = clusterService.state().metadata();
      Build build = Build.current();
      XContentBuilder body = channel.newBuilder();
      if (!request.hasParam("pretty")) {
        body.prettyPrint().lfAtEnd();
      }
      body.startObject()
          .field("name", nodeName)
          .field("cluster_name", clusterService.getClusterName().value())
          .field("cluster_uuid", metadata.clusterUUIDCommitted() ? metadata.clusterUUID() : Metadata.UNKNOWN_CLUSTER_UUID)
          .startObject("version")
          .field("number", build.qualifiedVersion())
          .field("build_flavor", build.flavor())
          .field("build_type", build.type().displayName())
          .field("build_hash", build.hash())
          .field("build_date", build.date())
          .field("build_snapshot", build.isSnapshot())
          .field("lucene_version", IndexVersion.current().luceneVersion().toString())
          .field("minimum_wire_compatibility_version", build.minWireCompatVersion())
          .field("minimum_index_compatibility_version", build.minIndexCompatVersion())
          .endObject()
          .field("tagline", "You Know, for Search")
          .endObject();
      channel.sendResponse(new RestResponse(RestStatus.OK, body));
    };
  }
}
