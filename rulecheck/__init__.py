"""rulecheck"""
