package dev.tandem.workflows.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The members a signal's payload must carry (not null, not blank), e.g. {@code "reason"} or {@code
 * "target.revision"}; {@link SignalInbox} rejects a payload without them. On a workflow interface's
 * signal method.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Requires {
  String[] value();
}
