package dev.flowpipe.node.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.mock.env.MockEnvironment;

class LiveRefreshDefaultTest {

  private static Boolean liveRefreshWith(MockEnvironment environment) {
    new LiveRefreshDefault().postProcessEnvironment(environment, new SpringApplication());
    return environment.getProperty(LiveRefreshDefault.LIVE_REFRESH, Boolean.class);
  }

  @Test
  void isOffWhileTheExporterRefreshesEachBulkAsItDoesByDefault() {
    assertThat(liveRefreshWith(new MockEnvironment())).isFalse();
    assertThat(liveRefreshWith(new MockEnvironment().withProperty(LiveRefreshDefault.BULK_REFRESH, "true"))).isFalse();
  }

  @Test
  void isOnWhenTheExporterLeavesRefreshesToTheStoresInterval() {
    assertThat(liveRefreshWith(new MockEnvironment().withProperty(LiveRefreshDefault.BULK_REFRESH, "false")))
        .isTrue();
    assertThat(liveRefreshWith(new MockEnvironment().withProperty(LiveRefreshDefault.BULK_REFRESH, " FALSE ")))
        .isTrue();
  }

  @Test
  void aValueTheOperatorSetHoldsEitherWay() {
    assertThat(liveRefreshWith(new MockEnvironment().withProperty(LiveRefreshDefault.LIVE_REFRESH, "true")))
        .isTrue();
    assertThat(liveRefreshWith(new MockEnvironment().withProperty(LiveRefreshDefault.LIVE_REFRESH, "false")
        .withProperty(LiveRefreshDefault.BULK_REFRESH, "false"))).isFalse();
  }
}
