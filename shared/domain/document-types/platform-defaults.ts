/**
 * The platform's default document types: the UK advice documents most firms submit for review, each with the
 * checklist a compliance reviewer works through. Every firm sees them; a firm may override one (PATCH) or add
 * its own. Data only: changing a checklist here changes it for every firm that has not overridden it, so
 * bump PLATFORM_DEFAULTS_UPDATED_AT with any change.
 *
 * References: COBS 9/9A (suitability), COBS 19.1 (pension transfers), COBS 19.9 and the FCA's retirement
 * income advice review, ICOBS 5 (protection), MCOB 4, 8 and 11 (mortgages, equity release, affordability),
 * FG21/1 (fair treatment of vulnerable customers) and PRIN 2A (Consumer Duty).
 */
export interface PlatformDocumentType {
  slug: string;
  name: string;
  checklistItems: readonly string[];
}

/** createdAt and updatedAt of every platform default. */
export const PLATFORM_DEFAULTS_UPDATED_AT = '2026-11-21T00:00:00.000Z';

export const PLATFORM_DOCUMENT_TYPES: readonly PlatformDocumentType[] = [
  {
    slug: 'SUITABILITY_REPORT',
    name: 'Suitability report (investment advice)',
    checklistItems: [
      "The client's objectives, needs and priorities are documented and the report explains how the recommendation meets them",
      'Attitude to risk and capacity for loss are assessed, any mismatch between them is reconciled, and the recommendation is consistent with both',
      'Affordability is evidenced: income, expenditure, emergency fund and existing borrowing are taken into account',
      "The client's knowledge and experience of the recommended investments are recorded",
      'All initial and ongoing charges (adviser, platform, product and fund) are disclosed in cash and percentage terms, with their effect on returns',
      'Alternatives considered and the reasons for rejecting them are explained, with the risks and disadvantages of the recommendation',
      'Characteristics of vulnerability have been considered and any adjustments to the advice process are recorded (FG21/1)',
      'Consumer Duty: the recommended solution offers fair value and the report is clear enough for the client to understand (PRIN 2A)',
    ],
  },
  {
    slug: 'PENSION_TRANSFER_REPORT',
    name: 'Defined benefit pension transfer report',
    checklistItems: [
      'An appropriate pension transfer analysis (APTA), including the transfer value comparator, has been carried out (COBS 19.1.6)',
      "The report starts from the assumption that a transfer is unsuitable and demonstrates why the transfer is in the client's best interests",
      "The safeguarded benefits given up (guaranteed income, indexation, spouse's and dependants' pensions) are identified and explained",
      "The client's income needs in retirement, other assets and capacity for loss are assessed, and their attitude to transfer risk is recorded",
      "The receiving scheme is justified against the client's workplace pension scheme (COBS 19.1.7B), with charges compared",
      'The adviser charge is disclosed and offers fair value (Consumer Duty); contingent charging is not used unless a permitted carve-out applies and is evidenced',
      'A qualified pension transfer specialist has checked the advice and the sign-off is recorded',
      'Vulnerability (FG21/1) and pension scam warning signs have been considered',
    ],
  },
  {
    slug: 'RETIREMENT_INCOME_REPORT',
    name: 'Retirement income report (drawdown and annuities)',
    checklistItems: [
      'The income the client needs is established and the withdrawal rate is shown to be sustainable, with cash-flow modelling under stressed scenarios',
      'Longevity, inflation and sequence-of-returns risks are explained',
      'Annuities (including enhanced annuities), drawdown, UFPLS and blended options are compared',
      'Tax is addressed: tax-free cash, the marginal rate on withdrawals and the money purchase annual allowance once benefits are flexibly accessed',
      'State Pension, other pensions and other assets are taken into account',
      "The investment strategy for drawdown matches the client's attitude to risk and capacity for loss",
      'Charges are disclosed in cash and percentage terms and offer fair value (Consumer Duty), and Pension Wise guidance has been offered',
      'Vulnerability (FG21/1), including health and the risk of declining capacity, has been considered and recorded',
    ],
  },
  {
    slug: 'PROTECTION_RECOMMENDATION',
    name: 'Protection recommendation',
    checklistItems: [
      "A statement of the client's demands and needs is provided and the recommended cover is consistent with it (ICOBS 5)",
      'The amount and term of cover are justified against debts, dependants, income and existing cover',
      'The premium is affordable and the premium basis (guaranteed or reviewable) is explained',
      'The client has been told about the duty to take reasonable care to answer medical and lifestyle questions accurately',
      'Exclusions, waiting or deferred periods and the key policy definitions are explained',
      'Writing the policy in trust has been considered and the outcome recorded',
      'Vulnerability (FG21/1) has been considered and the cover offers fair value (Consumer Duty)',
    ],
  },
  {
    slug: 'MORTGAGE_RECOMMENDATION',
    name: 'Mortgage recommendation',
    checklistItems: [
      'Affordability is assessed on verified income and committed expenditure, including an interest-rate stress test (MCOB 11.6)',
      'The mortgage term is justified, including any lending into retirement',
      "The product is matched to the client's needs: rate type, early repayment charges, portability and overpayment options",
      'Fees are explained, including broker and lender fees and the cost of adding fees to the loan',
      'Where debts are consolidated, the cost and risk of securing unsecured debt against the home are explained',
      'The illustration (ESIS) provided matches the recommendation',
      'Vulnerability (FG21/1) has been considered and the recommendation offers fair value (Consumer Duty)',
    ],
  },
  {
    slug: 'EQUITY_RELEASE_REPORT',
    name: 'Equity release report (lifetime mortgage)',
    checklistItems: [
      "The client's needs are documented and the report explains why equity release is the most suitable way to meet them (MCOB 8)",
      'Alternatives are considered: downsizing, other borrowing, local authority grants, state benefits and help from family',
      'The effect on means-tested benefits, tax and the value of the estate is explained',
      'The roll-up of interest is illustrated over time and the no-negative-equity guarantee is confirmed',
      'Product features are explained: lump sum or drawdown, early repayment charges, downsizing protection and portability',
      'Family involvement has been encouraged and independent legal advice arranged',
      "Vulnerability (FG21/1), including the client's capacity to make the decision, has been assessed and recorded",
      'All fees and charges are disclosed and the recommendation offers fair value (Consumer Duty)',
    ],
  },
  {
    slug: 'ANNUAL_REVIEW',
    name: 'Annual review (ongoing advice)',
    checklistItems: [
      'The ongoing service was delivered as agreed and the ongoing charge is justified by it',
      "Changes in the client's circumstances, objectives and any characteristics of vulnerability since the last review are recorded",
      'Attitude to risk and capacity for loss are reassessed and the portfolio still matches them',
      "Performance is reported against the client's objectives, with charges for the period in cash terms",
      'The existing recommendations are confirmed as still suitable, or changes are recommended with reasons',
      'Tax allowances and wrappers (ISA, pension annual allowance) have been considered',
      'Consumer Duty: the ongoing service offers fair value and the client understands what they receive',
    ],
  },
];
