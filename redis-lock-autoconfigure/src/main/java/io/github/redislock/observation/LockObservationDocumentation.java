package io.github.redislock.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation.Context;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of redis-lock and their key names.
 *
 * @author redis-lock
 */
public enum LockObservationDocumentation implements ObservationDocumentation {

	/**
	 * An acquisition of a lock, from its first attempt to the grant, the end of its wait
	 * time or its failure. Reentrant acquisitions of a lock the thread holds are not
	 * observed.
	 */
	ACQUIRE {

		@Override
		public Class<? extends ObservationConvention<? extends Context>> getDefaultConvention() {
			return DefaultLockAcquireObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return LowCardinalityKeyNames.values();
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return new KeyName[] { HighCardinalityKeyNames.LOCK_KEY };
		}

	},

	/**
	 * A hold of a lock, from its grant to its release, whether it was still held then
	 * ({@code released}) or had been lost ({@code lost}).
	 */
	HELD {

		@Override
		public Class<? extends ObservationConvention<? extends Context>> getDefaultConvention() {
			return DefaultLockHoldObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return LowCardinalityKeyNames.values();
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return HighCardinalityKeyNames.values();
		}

	};

	/**
	 * Low-cardinality key names: metric tags and span attributes.
	 */
	public enum LowCardinalityKeyNames implements KeyName {

		/**
		 * Name of the lock: the request's name ({@code BeanClass.method} for
		 * {@code @DistributedLock}), else the key with its ids replaced by {@code *}.
		 */
		LOCK_NAME {

			@Override
			public String asString() {
				return "lock.name";
			}

		},

		/**
		 * How the acquisition ended ({@code acquired}, {@code timed-out}, {@code failed},
		 * {@code interrupted}) or the hold ended ({@code released}, {@code lost},
		 * {@code failed}); {@code unknown} while it runs.
		 */
		OUTCOME {

			@Override
			public String asString() {
				return "outcome";
			}

		}

	}

	/**
	 * High-cardinality key names: span attributes only.
	 */
	public enum HighCardinalityKeyNames implements KeyName {

		/**
		 * The lock's key, with its ids; only when
		 * {@code redis-lock.observations.include-key} is set.
		 */
		LOCK_KEY {

			@Override
			public String asString() {
				return "lock.key";
			}

		},

		/**
		 * The fencing token of the hold.
		 */
		FENCING_TOKEN {

			@Override
			public String asString() {
				return "lock.fencing-token";
			}

		}

	}

}
